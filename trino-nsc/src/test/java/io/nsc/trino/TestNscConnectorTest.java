package io.nsc.trino;

import io.nsc.protocol.catalog.NameRules;
import io.nsc.protocol.catalog.TypeWidening;
import io.trino.testing.BaseConnectorTest;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import io.trino.testing.sql.TestTable;
import io.trino.tpch.TpchTable;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalInt;

import static com.google.common.base.Strings.nullToEmpty;
import static io.nsc.protocol.catalog.NameRules.MAX_NAME_LENGTH;
import static io.trino.plugin.tpch.ColumnNaming.SIMPLIFIED;
import static java.util.Locale.ENGLISH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.abort;

/**
 * Trino's connector conformance suite against nsc. {@link #hasBehavior} names every behaviour of
 * Trino 476 without a default, so a Trino upgrade that adds one fails to compile here instead of
 * silently inheriting an answer.
 *
 * <p>What a behaviour nsc lacks makes the suite skip, and each refusal the suite checks is in
 * Trino's standard words; {@code trino-nsc/CONFORMANCE.md} keeps the count.
 */
final class TestNscConnectorTest
        extends BaseConnectorTest
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(3));
        return NscQueryRunner.builder(cluster)
                // the suite's queries use orderkey, not o_orderkey
                .setTpchColumnNaming(SIMPLIFIED)
                .setInitialTables(TpchTable.getTables())
                .build();
    }

    @SuppressWarnings("DuplicateBranchesInSwitch")
    @Override
    protected boolean hasBehavior(TestingConnectorBehavior behavior)
    {
        return switch (behavior) {
            case SUPPORTS_INSERT,
                    SUPPORTS_CREATE_SCHEMA,
                    SUPPORTS_CREATE_TABLE,
                    SUPPORTS_CREATE_TABLE_WITH_DATA,
                    SUPPORTS_NEGATIVE_DATE,
                    // the page sink reports the bytes it uploaded
                    SUPPORTS_REPORTING_WRITTEN_BYTES -> true;

            // domains and LIKE / OR expressions are enforced by the storage nodes; dynamic filters prune splits and rows
            case SUPPORTS_PREDICATE_PUSHDOWN,
                    SUPPORTS_PREDICATE_PUSHDOWN_WITH_VARCHAR_EQUALITY,
                    SUPPORTS_PREDICATE_PUSHDOWN_WITH_VARCHAR_INEQUALITY,
                    SUPPORTS_PREDICATE_EXPRESSION_PUSHDOWN,
                    SUPPORTS_PREDICATE_EXPRESSION_PUSHDOWN_WITH_LIKE,
                    SUPPORTS_DYNAMIC_FILTER_PUSHDOWN -> true;
            // arithmetic over columns stays in Trino (docs/connector/limits.md)
            case SUPPORTS_PREDICATE_ARITHMETIC_EXPRESSION_PUSHDOWN -> false;

            // into each split (varchar sort keys too); Trino keeps its own limit / top-N over all splits
            case SUPPORTS_LIMIT_PUSHDOWN,
                    SUPPORTS_TOPN_PUSHDOWN,
                    SUPPORTS_TOPN_PUSHDOWN_WITH_VARCHAR -> true;

            // count, sum, min, max, avg over columns, grouped by few groups
            case SUPPORTS_AGGREGATION_PUSHDOWN -> true;
            case SUPPORTS_AGGREGATION_PUSHDOWN_STDDEV,
                    SUPPORTS_AGGREGATION_PUSHDOWN_VARIANCE,
                    SUPPORTS_AGGREGATION_PUSHDOWN_COVARIANCE,
                    SUPPORTS_AGGREGATION_PUSHDOWN_CORRELATION,
                    SUPPORTS_AGGREGATION_PUSHDOWN_REGRESSION,
                    SUPPORTS_AGGREGATION_PUSHDOWN_COUNT_DISTINCT -> false;

            case SUPPORTS_JOIN_PUSHDOWN,
                    SUPPORTS_JOIN_PUSHDOWN_WITH_FULL_JOIN,
                    SUPPORTS_JOIN_PUSHDOWN_WITH_DISTINCT_FROM,
                    SUPPORTS_JOIN_PUSHDOWN_WITH_VARCHAR_EQUALITY,
                    SUPPORTS_JOIN_PUSHDOWN_WITH_VARCHAR_INEQUALITY -> false;

            // nested types are refused (docs/connector/limits.md)
            case SUPPORTS_ARRAY,
                    SUPPORTS_MAP_TYPE,
                    SUPPORTS_ROW_TYPE,
                    SUPPORTS_DEREFERENCE_PUSHDOWN,
                    SUPPORTS_ADD_FIELD,
                    SUPPORTS_ADD_FIELD_IN_ARRAY,
                    SUPPORTS_DROP_FIELD,
                    SUPPORTS_DROP_FIELD_IN_ARRAY,
                    SUPPORTS_RENAME_FIELD,
                    SUPPORTS_SET_FIELD_TYPE,
                    SUPPORTS_SET_FIELD_TYPE_IN_ARRAY,
                    SUPPORTS_SET_FIELD_TYPE_IN_MAP -> false;

            // metadata-only table operations: one transaction of the metadata service each
            case SUPPORTS_CREATE_OR_REPLACE_TABLE,
                    SUPPORTS_TRUNCATE,
                    SUPPORTS_DROP_SCHEMA_CASCADE,
                    SUPPORTS_RENAME_SCHEMA,
                    SUPPORTS_RENAME_TABLE,
                    SUPPORTS_RENAME_TABLE_ACROSS_SCHEMAS,
                    SUPPORTS_COMMENT_ON_TABLE,
                    SUPPORTS_COMMENT_ON_COLUMN,
                    SUPPORTS_CREATE_TABLE_WITH_TABLE_COMMENT,
                    SUPPORTS_CREATE_TABLE_WITH_COLUMN_COMMENT -> true;

            // columns are slots of the files' schema: added at the end (older files read NULL),
            // dropped ones keep their slot, renames change no file
            case SUPPORTS_ADD_COLUMN,
                    SUPPORTS_ADD_COLUMN_WITH_COMMENT,
                    SUPPORTS_DROP_COLUMN,
                    SUPPORTS_RENAME_COLUMN -> true;

            // DELETE: files and row groups the predicate covers leave in the metadata, other files
            // with matching rows are rewritten (copy-on-write); UPDATE and MERGE delete so and
            // insert the new rows into new files
            case SUPPORTS_DELETE,
                    SUPPORTS_ROW_LEVEL_DELETE,
                    SUPPORTS_UPDATE,
                    SUPPORTS_ROW_LEVEL_UPDATE,
                    SUPPORTS_MERGE -> true;

            // widenings only (TypeWidening): the others are refused, see filterSetColumnTypesDataProvider
            case SUPPORTS_SET_COLUMN_TYPE -> true;

            // no column moves (docs/connector/limits.md)
            case SUPPORTS_ADD_COLUMN_WITH_POSITION,
                    SUPPORTS_NOT_NULL_CONSTRAINT,
                    SUPPORTS_ADD_COLUMN_NOT_NULL_CONSTRAINT,
                    SUPPORTS_DROP_NOT_NULL_CONSTRAINT -> false;

            // views live in the metadata service's catalog, in one namespace with the tables
            case SUPPORTS_CREATE_VIEW,
                    SUPPORTS_COMMENT_ON_VIEW,
                    SUPPORTS_COMMENT_ON_VIEW_COLUMN -> true;

            // materialized views: the definition with the views, the data in an nsc storage table,
            // fresh while the nsc tables the last refresh read are at the versions it read
            case SUPPORTS_CREATE_MATERIALIZED_VIEW,
                    SUPPORTS_CREATE_MATERIALIZED_VIEW_GRACE_PERIOD,
                    SUPPORTS_CREATE_FEDERATED_MATERIALIZED_VIEW,
                    SUPPORTS_MATERIALIZED_VIEW_FRESHNESS_FROM_BASE_TABLES,
                    SUPPORTS_RENAME_MATERIALIZED_VIEW,
                    SUPPORTS_COMMENT_ON_MATERIALIZED_VIEW_COLUMN -> true;
            // the storage table stays in the view's schema: refused rather than moved in a second, non-atomic step
            case SUPPORTS_RENAME_MATERIALIZED_VIEW_ACROSS_SCHEMAS -> false;

            case SUPPORTS_CREATE_FUNCTION,
                    SUPPORTS_NATIVE_QUERY,
                    SUPPORTS_MULTI_STATEMENT_WRITES,
                    SUPPORTS_CANCELLATION -> false;
        };
    }

    /**
     * Concurrent UPDATEs of one row: commits are optimistic, so the one that finds the file it
     * rewrites already rewritten fails with TRANSACTION_CONFLICT and changes nothing.
     */
    @Override
    protected void verifyConcurrentUpdateFailurePermissible(Exception e)
    {
        assertThat(e).hasMessageMatching("UPDATE or MERGE into \\S+ conflicts with a commit made since it began: (?s).*");
    }

    @Override
    protected void verifyVersionedQueryFailurePermissible(Exception e)
    {
        // nation's history holds a few versions, all younger than 2005 and far below 123; other
        // pointer types name no nsc version
        assertThat(e).hasMessageMatching(
                "Table tpch.nation has no version as of .*: its first version was committed later" +
                "|Table tpch.nation is at version \\d+: version 123 does not exist" +
                "|Unsupported type for (temporal )?table version: .*");
    }

    // nsc widens integers, real and decimal precision (as Trino's Iceberg connector does) and
    // refuses every other change; nested types are no nsc column types at all
    @Override
    protected Optional<SetColumnTypeSetup> filterSetColumnTypesDataProvider(SetColumnTypeSetup setup)
    {
        String source = setup.sourceColumnType();
        if (source.startsWith("row") || source.startsWith("array") || source.startsWith("map")) {
            return Optional.empty();
        }
        return Optional.of(TypeWidening.isWidening(source, setup.newColumnType()) ? setup : setup.asUnsupported());
    }

    @Override
    protected void verifySetColumnTypeFailurePermissible(Throwable e)
    {
        assertThat(e).hasMessageMatching("Cannot change type from .* to .*");
    }

    @Override
    protected OptionalInt maxSchemaNameLength()
    {
        return OptionalInt.of(MAX_NAME_LENGTH);
    }

    @Override
    protected void verifySchemaNameLengthFailurePermissible(Throwable e)
    {
        assertRefusedAsTooLong(e, "schema");
    }

    @Override
    protected OptionalInt maxTableNameLength()
    {
        return OptionalInt.of(MAX_NAME_LENGTH);
    }

    @Override
    protected void verifyTableNameLengthFailurePermissible(Throwable e)
    {
        assertRefusedAsTooLong(e, "table");
    }

    @Override
    protected OptionalInt maxColumnNameLength()
    {
        return OptionalInt.of(MAX_NAME_LENGTH);
    }

    @Override
    protected void verifyColumnNameLengthFailurePermissible(Throwable e)
    {
        assertRefusedAsTooLong(e, "column");
    }

    // NameRules: lower-case letters, digits and underscores. A name is refused with nsc's message
    // or not at all: any other failure of the suite's column-name tests stays a failure.
    @Override
    protected boolean isColumnNameRejected(Exception exception, String columnName, boolean delimited)
    {
        return NameRules.problem("column", columnName.toLowerCase(ENGLISH))
                .filter(problem -> nullToEmpty(exception.getMessage()).contains(problem))
                .isPresent();
    }

    @Override
    protected TestTable createTableWithDefaultColumns()
    {
        return abort("nsc has no column default values");
    }

    // a storage table is an nsc table, and nsc writes no time columns (docs/connector/limits.md):
    // the view is refused before anything is created; the other types are covered by testMaterializedView
    @Test
    @Override
    public void testMaterializedViewAllTypes()
    {
        assertThatThrownBy(super::testMaterializedViewAllTypes).hasMessageContaining("Unsupported column type: time(0)");
    }

    // nsc shows the row group size a table was written with, also when it is the default
    @Test
    @Override
    public void testShowCreateTable()
    {
        assertThat(computeScalar("SHOW CREATE TABLE orders")).isEqualTo("""
                CREATE TABLE nsc.tpch.orders (
                   orderkey bigint,
                   custkey bigint,
                   orderstatus varchar(1),
                   totalprice double,
                   orderdate date,
                   orderpriority varchar(15),
                   clerk varchar(15),
                   shippriority integer,
                   comment varchar(79)
                )
                WITH (
                   row_group_size = '100000'
                )""");
    }

    // The suite renames from "a;b$c", a name nsc refuses (NameRules, docs/connector/writing.md),
    // so every target name would fail at the CREATE TABLE. The same test from a name nsc takes:
    // each target name is renamed to, or refused with nsc's message and nothing else.
    @Override
    protected void testRenameColumnName(String columnName, boolean delimited)
    {
        String nameInSql = delimited ? "\"" + columnName.replace("\"", "\"\"") + "\"" : columnName;
        try (TestTable table = newTrinoTable("tcn_", "(source_column varchar(50))")) {
            try {
                assertUpdate("ALTER TABLE " + table.getName() + " RENAME COLUMN source_column TO " + nameInSql);
            }
            catch (RuntimeException e) {
                assertThat(isColumnNameRejected(e, columnName, delimited)).as("refusal of %s: %s", columnName, e).isTrue();
                assertTableColumnNames(table.getName(), "source_column");
                return;
            }
            assertTableColumnNames(table.getName(), columnName.toLowerCase(ENGLISH));
        }
    }

    // nsc's own refusal (NameRules): a limit declared through the suite's hooks, not a failure hidden
    private static void assertRefusedAsTooLong(Throwable e, String kind)
    {
        assertThat(e).hasMessageMatching("Invalid %s name '.*': .* at most %s characters".formatted(kind, MAX_NAME_LENGTH));
    }
}

package io.nsc.trino;

import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

import static io.trino.spi.StandardErrorCode.INVALID_ARGUMENTS;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Time travel through SQL: {@code FOR VERSION AS OF} and {@code FOR TIMESTAMP AS OF} read a kept
 * version exactly, with the columns it had, beside the current one; {@code "<table>$history"} and
 * {@code "<table>$snapshots"} list the versions with what made each; a version outside the
 * table's history is a clear error.
 */
final class TestNscTimeTravel
        extends AbstractTestQueryFramework
{
    private static final DateTimeFormatter TIMESTAMP_LITERAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS VV");
    private static final DateTimeFormatter LOCAL_TIMESTAMP_LITERAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.create(cluster, Map.of());
    }

    @Test
    void testEachVersionReadsAsItWas()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.travel");
        assertUpdate("CREATE TABLE nsc.travel.orders (k bigint, v varchar)");
        assertUpdate("INSERT INTO nsc.travel.orders VALUES (1, 'a'), (2, 'b'), (3, 'c')", 3);
        assertUpdate("INSERT INTO nsc.travel.orders VALUES (4, 'd')", 1);
        assertUpdate("DELETE FROM nsc.travel.orders WHERE k = 2", 1);
        assertUpdate("UPDATE nsc.travel.orders SET v = 'z' WHERE k = 3", 1);

        assertThat(query("SELECT k, v FROM nsc.travel.orders FOR VERSION AS OF 1")).returnsEmptyResult();
        assertThat(query("SELECT k, v FROM nsc.travel.orders FOR VERSION AS OF 2")).matches("VALUES (BIGINT '1', VARCHAR 'a'), (2, 'b'), (3, 'c')");
        assertThat(query("SELECT k, v FROM nsc.travel.orders FOR VERSION AS OF 3")).matches("VALUES (BIGINT '1', VARCHAR 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
        assertThat(query("SELECT k, v FROM nsc.travel.orders FOR VERSION AS OF 4")).matches("VALUES (BIGINT '1', VARCHAR 'a'), (3, 'c'), (4, 'd')");
        assertThat(query("SELECT k, v FROM nsc.travel.orders FOR VERSION AS OF 5")).matches("VALUES (BIGINT '1', VARCHAR 'a'), (3, 'z'), (4, 'd')");
        assertThat(query("SELECT k, v FROM nsc.travel.orders")).matches("VALUES (BIGINT '1', VARCHAR 'a'), (3, 'z'), (4, 'd')");
        // an old version beside the current one in one query: what a DELETE and an UPDATE changed
        assertThat(query("""
                SELECT old.k, old.v, new.v FROM nsc.travel.orders FOR VERSION AS OF 3 old
                LEFT JOIN nsc.travel.orders new ON old.k = new.k
                WHERE new.v IS NULL OR new.v <> old.v
                """))
                .matches("VALUES (BIGINT '2', VARCHAR 'b', CAST(NULL AS varchar)), (3, 'c', 'z')");

        assertThat(query("SELECT version, operation, row_count, file_count IS NOT NULL, is_current FROM nsc.travel.\"orders$history\""))
                .matches("""
                        VALUES
                            (BIGINT '1', VARCHAR 'CREATE TABLE', BIGINT '0', true, false),
                            (2, 'INSERT', 3, true, false),
                            (3, 'INSERT', 4, true, false),
                            (4, 'DELETE', 3, true, false),
                            (5, 'MERGE', 3, true, true)
                        """);
        assertThat(query("""
                SELECT version, parent_version, operation, size_bytes > 0, expires_at IS NULL, expires_at > committed_at
                FROM nsc.travel."orders$snapshots" WHERE version IN (1, 4, 5)
                """))
                .matches("""
                        VALUES
                            (BIGINT '1', CAST(NULL AS bigint), VARCHAR 'CREATE TABLE', false, false, true),
                            (4, 3, 'DELETE', true, false, true),
                            (5, 4, 'MERGE', true, true, NULL)
                        """);
    }

    @Test
    void testTimestampResolvesToTheVersionCurrentThen()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.travel");
        assertUpdate("CREATE TABLE nsc.travel.by_time (k bigint)");
        assertUpdate("INSERT INTO nsc.travel.by_time VALUES 1", 1);
        assertUpdate("INSERT INTO nsc.travel.by_time VALUES 2", 1);
        List<ZonedDateTime> committed = computeActual("SELECT committed_at FROM nsc.travel.\"by_time$history\" ORDER BY version").getOnlyColumn()
                .map(ZonedDateTime.class::cast)
                .toList();
        assertThat(committed).hasSize(3);

        // Trino refuses a pointer that is not before the session's start: a session started now
        Session now = Session.builder(getSession()).setStart(Instant.now()).build();
        assertThat(query(now, "SELECT sum(k) FROM nsc.travel.by_time FOR TIMESTAMP AS OF TIMESTAMP '%s'".formatted(committed.get(1).format(TIMESTAMP_LITERAL))))
                .matches("VALUES BIGINT '1'");
        assertThat(query(now, "SELECT sum(k) FROM nsc.travel.by_time FOR TIMESTAMP AS OF TIMESTAMP '%s'".formatted(committed.get(2).format(TIMESTAMP_LITERAL))))
                .matches("VALUES BIGINT '3'");
        assertThat(query(now, "SELECT count(*) FROM nsc.travel.by_time FOR TIMESTAMP AS OF TIMESTAMP '%s'".formatted(committed.get(2).minusNanos(1_000_000).format(TIMESTAMP_LITERAL))))
                .matches("VALUES BIGINT '1'");
        // a timestamp without a zone is a time in the session's zone
        assertThat(query(now, "SELECT count(*) FROM nsc.travel.by_time FOR TIMESTAMP AS OF TIMESTAMP '%s'".formatted(committed.get(2).withZoneSameInstant(now.getTimeZoneKey().getZoneId()).toLocalDateTime().format(LOCAL_TIMESTAMP_LITERAL))))
                .matches("VALUES BIGINT '2'");

        assertThat(query(now, "SELECT * FROM nsc.travel.by_time FOR TIMESTAMP AS OF TIMESTAMP '%s'".formatted(committed.getFirst().minusSeconds(1).format(TIMESTAMP_LITERAL))))
                .failure()
                .hasErrorCode(INVALID_ARGUMENTS)
                .hasMessageStartingWith("Table travel.by_time has no version as of ");
    }

    @Test
    void testVersionsAreReadWithTheColumnsTheyHad()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.travel");
        assertUpdate("CREATE TABLE nsc.travel.evolving (k bigint, gone varchar)");
        assertUpdate("INSERT INTO nsc.travel.evolving VALUES (1, 'kept in version 2')", 1);
        assertUpdate("ALTER TABLE nsc.travel.evolving ADD COLUMN added double");
        assertUpdate("ALTER TABLE nsc.travel.evolving DROP COLUMN gone");
        assertUpdate("INSERT INTO nsc.travel.evolving VALUES (2, 2.5)", 1);

        assertThat(query("SELECT * FROM nsc.travel.evolving FOR VERSION AS OF 2")).matches("VALUES (BIGINT '1', VARCHAR 'kept in version 2')");
        assertThat(query("SELECT * FROM nsc.travel.evolving FOR VERSION AS OF 3")).matches("VALUES (BIGINT '1', VARCHAR 'kept in version 2', CAST(NULL AS double))");
        assertThat(query("SELECT * FROM nsc.travel.evolving")).matches("VALUES (BIGINT '1', CAST(NULL AS double)), (2, 2.5)");
        assertThat(query("SELECT gone FROM nsc.travel.evolving")).failure().hasMessageContaining("Column 'gone' cannot be resolved");
        assertThat(query("SELECT operation FROM nsc.travel.\"evolving$history\" WHERE version > 2"))
                .matches("VALUES VARCHAR 'ADD COLUMN', 'DROP COLUMN', 'INSERT'");
    }

    @Test
    void testPointersOutsideTheHistoryAreClearErrors()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.travel");
        assertUpdate("CREATE TABLE nsc.travel.short (k bigint)");
        assertUpdate("INSERT INTO nsc.travel.short VALUES 1", 1);

        assertThat(query("SELECT * FROM nsc.travel.short FOR VERSION AS OF 9")).failure()
                .hasErrorCode(INVALID_ARGUMENTS)
                .hasMessage("Table travel.short is at version 2: version 9 does not exist");
        assertThat(query("SELECT * FROM nsc.travel.short FOR VERSION AS OF 0")).failure()
                .hasErrorCode(INVALID_ARGUMENTS)
                .hasMessage("nsc table versions start at 1, got 0");
        assertThat(query("SELECT * FROM nsc.travel.short FOR VERSION AS OF 'one'")).failure()
                .hasMessageContaining("Unsupported type for table version: varchar(3)");
        assertThat(query("SELECT * FROM nsc.travel.missing FOR VERSION AS OF 1")).failure()
                .hasMessageContaining("Table 'nsc.travel.missing' does not exist");
        assertThat(query("SELECT * FROM nsc.travel.\"missing$history\"")).failure()
                .hasMessageContaining("Table 'nsc.travel.\"missing$history\"' does not exist");
    }

    @Test
    void testVersionRetentionProperty()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.travel");
        assertUpdate("CREATE TABLE nsc.travel.kept (k bigint) WITH (version_retention = '7d')");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.travel.kept")).contains("version_retention = '7d'");
        MaterializedResult properties = computeActual("SELECT * FROM nsc.travel.\"kept$snapshots\"");
        assertThat(properties.getRowCount()).isEqualTo(1);
        MaterializedRow first = properties.getMaterializedRows().getFirst();
        assertThat(first.getField(0)).isEqualTo(1L);

        assertUpdate("ALTER TABLE nsc.travel.kept SET PROPERTIES version_retention = '36h'");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.travel.kept")).contains("version_retention = '36h'");
        assertThat(computeScalar("SELECT count(*) FROM nsc.travel.\"kept$history\"")).isEqualTo(1L);
        assertUpdate("ALTER TABLE nsc.travel.kept SET PROPERTIES version_retention = DEFAULT");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.travel.kept")).doesNotContain("version_retention");
        assertThat(query("ALTER TABLE nsc.travel.kept SET PROPERTIES replication = 1")).failure()
                .hasErrorCode(NOT_SUPPORTED)
                .hasMessage("Table property replication cannot be changed after the table is created: its files were written by it (only version_retention can be set)");
        assertThat(query("ALTER TABLE nsc.travel.kept SET PROPERTIES version_retention = 'never'")).failure()
                .hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("version_retention must be a duration such as '7d' or '12h', not 'never'");

        assertThat(query("CREATE TABLE nsc.travel.bad (k bigint) WITH (version_retention = 'a while')")).failure()
                .hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("version_retention must be a duration such as '7d' or '12h', not 'a while'");
        assertThat(query("CREATE TABLE nsc.travel.bad (k bigint) WITH (version_retention = '3651d')")).failure()
                .hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("version_retention is 3651d, more than the longest allowed, 3650d");
    }
}

package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.proto.TableVersion;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * The versions of an nsc table that the metadata service keeps, the ones {@code FOR VERSION AS OF}
 * and {@code FOR TIMESTAMP AS OF} can read: {@code "<table>$history"}, one row per version with
 * what made it, when, and the table's rows and files then; and {@code "<table>$snapshots"}, the
 * same with the version before each, the bytes, and when the retention lets each go. The
 * operation and totals are NULL for versions committed before the catalog recorded them.
 */
public final class NscHistoryTable
        implements SystemTable
{
    public enum Kind
    {
        HISTORY("$history", List.of(
                column("version", BIGINT, TableVersion::getVersion),
                column("committed_at", TIMESTAMP_TZ_MILLIS, version -> timestamp(version.getCommittedMillis())),
                column("operation", VARCHAR, version -> version.hasOperation() ? version.getOperation() : null),
                column("row_count", BIGINT, version -> version.hasRowCount() ? version.getRowCount() : null),
                column("file_count", BIGINT, version -> version.hasFileCount() ? version.getFileCount() : null),
                column("is_current", BOOLEAN, TableVersion::getCurrent))),
        SNAPSHOTS("$snapshots", List.of(
                column("version", BIGINT, TableVersion::getVersion),
                column("parent_version", BIGINT, version -> version.getVersion() > 1 ? version.getVersion() - 1 : null),
                column("committed_at", TIMESTAMP_TZ_MILLIS, version -> timestamp(version.getCommittedMillis())),
                column("operation", VARCHAR, version -> version.hasOperation() ? version.getOperation() : null),
                column("row_count", BIGINT, version -> version.hasRowCount() ? version.getRowCount() : null),
                column("file_count", BIGINT, version -> version.hasFileCount() ? version.getFileCount() : null),
                column("size_bytes", BIGINT, version -> version.hasSizeBytes() ? version.getSizeBytes() : null),
                column("expires_at", TIMESTAMP_TZ_MILLIS, version -> version.hasExpiresMillis() ? timestamp(version.getExpiresMillis()) : null)));

        private final String suffix;
        private final List<VersionColumn> columns;

        Kind(String suffix, List<VersionColumn> columns)
        {
            this.suffix = suffix;
            this.columns = ImmutableList.copyOf(columns);
        }
    }

    /** A metadata table's name, taken apart: the table it describes, and which of its tables it is. */
    public record Name(SchemaTableName dataTable, Kind kind)
    {
        public Name
        {
            requireNonNull(dataTable, "dataTable is null");
            requireNonNull(kind, "kind is null");
        }

        /** Empty when {@code name} is no history table's name. */
        public static Optional<Name> parse(SchemaTableName name)
        {
            return Arrays.stream(Kind.values())
                    .flatMap(kind -> MetadataTableNames.dataTable(name, kind.suffix).map(table -> new Name(table, kind)).stream())
                    .findFirst();
        }
    }

    private record VersionColumn(ColumnMetadata metadata, Function<TableVersion, Object> value) {}

    private final ConnectorTableMetadata tableMetadata;
    private final Kind kind;
    private final Supplier<List<TableVersion>> versions;

    /**
     * @param versions the versions, read when the table is scanned
     */
    public NscHistoryTable(SchemaTableName name, Kind kind, Supplier<List<TableVersion>> versions)
    {
        this.kind = requireNonNull(kind, "kind is null");
        this.tableMetadata = new ConnectorTableMetadata(requireNonNull(name, "name is null"), kind.columns.stream().map(VersionColumn::metadata).toList());
        this.versions = requireNonNull(versions, "versions is null");
    }

    @Override
    public Distribution getDistribution()
    {
        return Distribution.SINGLE_COORDINATOR;
    }

    @Override
    public ConnectorTableMetadata getTableMetadata()
    {
        return tableMetadata;
    }

    @Override
    public RecordCursor cursor(ConnectorTransactionHandle transaction, ConnectorSession session, TupleDomain<Integer> constraint)
    {
        List<Type> types = kind.columns.stream().map(column -> column.metadata().getType()).toList();
        // a table keeps the versions of its retention: a few, not enough to stream
        InMemoryRecordSet.Builder rows = InMemoryRecordSet.builder(types);
        for (TableVersion version : versions.get()) {
            List<Object> values = new ArrayList<>(kind.columns.size());
            for (VersionColumn column : kind.columns) {
                values.add(column.value().apply(version));
            }
            rows.addRow(values.toArray());
        }
        return rows.build().cursor();
    }

    private static VersionColumn column(String name, Type type, Function<TableVersion, Object> value)
    {
        return new VersionColumn(new ColumnMetadata(name, type), value);
    }

    private static long timestamp(long epochMillis)
    {
        return packDateTimeWithZone(epochMillis, UTC_KEY);
    }
}

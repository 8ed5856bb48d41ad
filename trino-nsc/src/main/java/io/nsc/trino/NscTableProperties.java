package io.nsc.trino;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import io.airlift.units.Duration;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.trino.split.BloomFilterValues;
import io.nsc.trino.write.RowGroupSize;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.Type;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The table properties of nsc tables. The metadata service keeps them as their SQL text (see
 * {@code TableInfo.properties} in nsc.proto); absent keys take the defaults, so a table loaded
 * with {@code ./nsc load} has none.
 */
public final class NscTableProperties
{
    public static final String SORTED_BY = "sorted_by";
    public static final String ROW_GROUP_SIZE = RowGroupSize.PROPERTY_NAME;
    public static final String REPLICATION = "replication";
    public static final String MIN_REPLICAS = "min_replicas";
    public static final String BLOOM_FILTER_COLUMNS = "bloom_filter_columns";
    public static final String COMPRESSION_CODEC = "compression_codec";
    public static final String VERSION_RETENTION = "version_retention";
    // as the metadata service allows: far beyond any use, far from overflowing a time in milliseconds
    private static final Duration MAX_VERSION_RETENTION = new Duration(3650, DAYS);
    private static final String BLOOM_FILTER_TYPES = "bigint, integer, smallint, tinyint, date, varchar and varbinary";

    /** Copies of each file when the table does not say. Never fewer: a write needs that many live storage nodes. */
    public static final int DEFAULT_REPLICATION = 2;

    private static final Splitter STORED_LIST = Splitter.on(',').trimResults().omitEmptyStrings();

    private final List<PropertyMetadata<?>> tableProperties;

    @Inject
    public NscTableProperties()
    {
        tableProperties = ImmutableList.of(
                new PropertyMetadata<>(
                        SORTED_BY,
                        "Columns the writer sorts each file by (ascending, nulls last), so that row-group min/max values prune well",
                        new ArrayType(VARCHAR),
                        List.class,
                        ImmutableList.of(),
                        false,
                        value -> decodeColumnNames(SORTED_BY, (List<?>) value),
                        value -> value),
                new PropertyMetadata<>(
                        BLOOM_FILTER_COLUMNS,
                        "Columns whose row groups get a Bloom filter, so that the coordinator skips the row groups an equality or IN on them cannot match (%s columns; needs a row_group_size in rows)".formatted(BLOOM_FILTER_TYPES),
                        new ArrayType(VARCHAR),
                        List.class,
                        ImmutableList.of(),
                        false,
                        value -> decodeColumnNames(BLOOM_FILTER_COLUMNS, (List<?>) value),
                        value -> value),
                new PropertyMetadata<>(
                        ROW_GROUP_SIZE,
                        "Row groups of exactly this many rows (such as '100000'), or of about this much data (such as '64MB')",
                        VARCHAR,
                        RowGroupSize.class,
                        RowGroupSize.DEFAULT,
                        false,
                        value -> RowGroupSize.parse((String) value),
                        RowGroupSize::toSql),
                // no default value here: an unset replication is not stored (nor shown by SHOW
                // CREATE TABLE), so the table follows the connector's default
                new PropertyMetadata<>(
                        REPLICATION,
                        "Copies of each file, on distinct storage nodes (unset: %s); a write fails when fewer storage nodes are live".formatted(DEFAULT_REPLICATION),
                        INTEGER,
                        Integer.class,
                        null,
                        false,
                        value -> decodeReplicaCount(REPLICATION, (Integer) value),
                        value -> value),
                // unset means "every replica": stored only when set, like replication
                new PropertyMetadata<>(
                        MIN_REPLICAS,
                        "Copies of each file a write must store when storage nodes fail during it, between 1 and replication (unset: replication)",
                        INTEGER,
                        Integer.class,
                        null,
                        false,
                        value -> decodeReplicaCount(MIN_REPLICAS, (Integer) value),
                        value -> value),
                // unset means the catalog's nsc.compression-codec, at the time of each write:
                // stored only when set, like replication
                new PropertyMetadata<>(
                        COMPRESSION_CODEC,
                        "Compression of the table's Parquet files: %s (unset: the catalog's nsc.compression-codec)".formatted(ParquetWriteCodec.names()),
                        VARCHAR,
                        ParquetWriteCodec.class,
                        null,
                        false,
                        value -> decodeCompressionCodec((String) value),
                        ParquetWriteCodec::name),
                // unset means the metadata service's metadata.table-version-retention: stored only when set
                new PropertyMetadata<>(
                        VERSION_RETENTION,
                        "How long a version stays readable (FOR VERSION AS OF, FOR TIMESTAMP AS OF) after a later one replaced it, such as '7d' (unset: the metadata service's metadata.table-version-retention)",
                        VARCHAR,
                        Duration.class,
                        null,
                        false,
                        value -> decodeVersionRetention((String) value),
                        NscTableProperties::toSql));
    }

    public List<PropertyMetadata<?>> getTableProperties()
    {
        return tableProperties;
    }

    public static List<String> getSortedBy(Map<String, Object> properties)
    {
        @SuppressWarnings("unchecked")
        List<String> sortedBy = (List<String>) properties.get(SORTED_BY);
        return sortedBy == null ? ImmutableList.of() : sortedBy;
    }

    public static List<String> getBloomFilterColumns(Map<String, Object> properties)
    {
        @SuppressWarnings("unchecked")
        List<String> columns = (List<String>) properties.get(BLOOM_FILTER_COLUMNS);
        return columns == null ? ImmutableList.of() : columns;
    }

    public static RowGroupSize getRowGroupSize(Map<String, Object> properties)
    {
        RowGroupSize size = (RowGroupSize) properties.get(ROW_GROUP_SIZE);
        return size == null ? RowGroupSize.DEFAULT : size;
    }

    public static Optional<Integer> getReplication(Map<String, Object> properties)
    {
        return Optional.ofNullable((Integer) properties.get(REPLICATION));
    }

    public static Optional<Integer> getMinReplicas(Map<String, Object> properties)
    {
        return Optional.ofNullable((Integer) properties.get(MIN_REPLICAS));
    }

    public static Optional<ParquetWriteCodec> getCompressionCodec(Map<String, Object> properties)
    {
        return Optional.ofNullable((ParquetWriteCodec) properties.get(COMPRESSION_CODEC));
    }

    public static Optional<Duration> getVersionRetention(Map<String, Object> properties)
    {
        return Optional.ofNullable((Duration) properties.get(VERSION_RETENTION));
    }

    /**
     * The copies of each file a write must store: {@code min_replicas} if set, else every replica.
     *
     * @param replication the table's replication, its default if unset
     * @throws TrinoException with INVALID_TABLE_PROPERTY when min_replicas exceeds the replication
     */
    public static int resolveMinReplicas(Map<String, Object> properties, int replication)
    {
        Optional<Integer> minReplicas = getMinReplicas(properties);
        if (minReplicas.isPresent() && minReplicas.get() > replication) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "%s must be between 1 and the table's %s (%s%s), got %s".formatted(
                    MIN_REPLICAS, REPLICATION, replication, getReplication(properties).isPresent() ? "" : ", the default", minReplicas.get()));
        }
        return minReplicas.orElse(replication);
    }

    /**
     * @throws TrinoException with INVALID_TABLE_PROPERTY naming the first sorted_by entry that is not a column
     */
    public static void checkSortedBy(List<String> sortedBy, Collection<String> columnNames)
    {
        for (String column : sortedBy) {
            if (!columnNames.contains(column)) {
                throw new TrinoException(INVALID_TABLE_PROPERTY, "%s names column '%s', which the table does not have (columns: %s)".formatted(
                        SORTED_BY, column, String.join(", ", columnNames)));
            }
        }
    }

    /**
     * @throws TrinoException with INVALID_TABLE_PROPERTY naming the first bloom_filter_columns entry
     * that is not a column, or is one of a type the coordinator cannot look up in a filter, and when
     * there are any but the row groups are not of a row count
     */
    public static void checkBloomFilterColumns(List<String> bloomFilterColumns, List<ColumnMetadata> columns, RowGroupSize rowGroupSize)
    {
        if (!bloomFilterColumns.isEmpty() && !rowGroupSize.isRowCount()) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "%s needs a %s in rows, such as '100000', not '%s'".formatted(BLOOM_FILTER_COLUMNS, ROW_GROUP_SIZE, rowGroupSize.toSql()));
        }
        Map<String, Type> types = columns.stream().collect(toImmutableMap(ColumnMetadata::getName, ColumnMetadata::getType));
        for (String column : bloomFilterColumns) {
            Type type = types.get(column);
            if (type == null) {
                throw new TrinoException(INVALID_TABLE_PROPERTY, "%s names column '%s', which the table does not have (columns: %s)".formatted(
                        BLOOM_FILTER_COLUMNS, column, String.join(", ", types.keySet())));
            }
            if (!BloomFilterValues.supportsBloomFilter(type)) {
                throw new TrinoException(INVALID_TABLE_PROPERTY, "%s names column '%s' of type %s; Bloom filters are supported for %s columns".formatted(
                        BLOOM_FILTER_COLUMNS, column, type.getDisplayName(), BLOOM_FILTER_TYPES));
            }
        }
    }

    /**
     * The stored properties after a column is renamed: the column lists that name it name the new
     * name instead.
     */
    public static Map<String, String> renameColumn(Map<String, String> stored, String name, String newName)
    {
        return mapColumnLists(stored, columns -> columns.stream().map(column -> column.equals(name) ? newName : column).toList());
    }

    /** The stored properties after a column is dropped: the column lists no longer name it. */
    public static Map<String, String> dropColumn(Map<String, String> stored, String name)
    {
        return mapColumnLists(stored, columns -> columns.stream().filter(column -> !column.equals(name)).toList());
    }

    private static Map<String, String> mapColumnLists(Map<String, String> stored, UnaryOperator<List<String>> change)
    {
        Map<String, String> changed = new LinkedHashMap<>(stored);
        for (String property : List.of(SORTED_BY, BLOOM_FILTER_COLUMNS)) {
            String value = stored.get(property);
            if (value == null) {
                continue;
            }
            List<String> columns = change.apply(STORED_LIST.splitToList(value));
            if (columns.isEmpty()) {
                changed.remove(property);
            }
            else {
                changed.put(property, String.join(",", columns));
            }
        }
        return ImmutableMap.copyOf(changed);
    }

    /**
     * The stored properties after ALTER TABLE ... SET PROPERTIES; an empty value resets the
     * property to unset. Only {@value #VERSION_RETENTION} may change: the others decide how the
     * table's files are written and read, which the files already written keep.
     *
     * @param changes values as Trino decoded them with this class's property metadata
     * @throws TrinoException NOT_SUPPORTED naming a property that cannot change
     */
    public static Map<String, String> setProperties(Map<String, String> stored, Map<String, Optional<Object>> changes)
    {
        Map<String, String> changed = new LinkedHashMap<>(stored);
        changes.forEach((name, value) -> {
            if (!name.equals(VERSION_RETENTION)) {
                throw new TrinoException(NOT_SUPPORTED, "Table property %s cannot be changed after the table is created: its files were written by it (only %s can be set)".formatted(name, VERSION_RETENTION));
            }
            value.ifPresentOrElse(
                    retention -> changed.put(VERSION_RETENTION, toSql((Duration) retention)),
                    () -> changed.remove(VERSION_RETENTION));
        });
        return ImmutableMap.copyOf(changed);
    }

    /** The properties as the metadata service stores them: SQL text, only what differs from "unset". */
    public static Map<String, String> toStored(Map<String, Object> properties)
    {
        ImmutableMap.Builder<String, String> stored = ImmutableMap.builder();
        List<String> sortedBy = getSortedBy(properties);
        if (!sortedBy.isEmpty()) {
            stored.put(SORTED_BY, String.join(",", sortedBy));
        }
        List<String> bloomFilterColumns = getBloomFilterColumns(properties);
        if (!bloomFilterColumns.isEmpty()) {
            stored.put(BLOOM_FILTER_COLUMNS, String.join(",", bloomFilterColumns));
        }
        // stored even when it is the default: the table keeps the row groups it was created with
        stored.put(ROW_GROUP_SIZE, getRowGroupSize(properties).toSql());
        getReplication(properties).ifPresent(replication -> stored.put(REPLICATION, Integer.toString(replication)));
        getMinReplicas(properties).ifPresent(minReplicas -> stored.put(MIN_REPLICAS, Integer.toString(minReplicas)));
        getCompressionCodec(properties).ifPresent(codec -> stored.put(COMPRESSION_CODEC, codec.name()));
        getVersionRetention(properties).ifPresent(retention -> stored.put(VERSION_RETENTION, toSql(retention)));
        return stored.buildOrThrow();
    }

    /**
     * The stored properties as Trino property values (what the decoders above return); keys
     * absent from {@code stored} stay absent, and the getters above give their defaults.
     *
     * @throws TrinoException with NSC_METADATA_ERROR when the metadata service holds text no release of the connector writes
     */
    public static Map<String, Object> fromStored(String tableName, Map<String, String> stored)
    {
        ImmutableMap.Builder<String, Object> properties = ImmutableMap.builder();
        try {
            String sortedBy = stored.get(SORTED_BY);
            if (sortedBy != null && !sortedBy.isBlank()) {
                properties.put(SORTED_BY, decodeColumnNames(SORTED_BY, STORED_LIST.splitToList(sortedBy)));
            }
            String bloomFilterColumns = stored.get(BLOOM_FILTER_COLUMNS);
            if (bloomFilterColumns != null && !bloomFilterColumns.isBlank()) {
                properties.put(BLOOM_FILTER_COLUMNS, decodeColumnNames(BLOOM_FILTER_COLUMNS, STORED_LIST.splitToList(bloomFilterColumns)));
            }
            // absent for tables loaded from existing files: their row groups are whatever the files have
            String rowGroupSize = stored.get(ROW_GROUP_SIZE);
            if (rowGroupSize != null) {
                properties.put(ROW_GROUP_SIZE, RowGroupSize.parse(rowGroupSize));
            }
            String replication = stored.get(REPLICATION);
            if (replication != null) {
                properties.put(REPLICATION, decodeReplicaCount(REPLICATION, Integer.parseInt(replication.trim())));
            }
            String minReplicas = stored.get(MIN_REPLICAS);
            if (minReplicas != null) {
                properties.put(MIN_REPLICAS, decodeReplicaCount(MIN_REPLICAS, Integer.parseInt(minReplicas.trim())));
            }
            String compressionCodec = stored.get(COMPRESSION_CODEC);
            if (compressionCodec != null) {
                properties.put(COMPRESSION_CODEC, decodeCompressionCodec(compressionCodec));
            }
            String versionRetention = stored.get(VERSION_RETENTION);
            if (versionRetention != null) {
                properties.put(VERSION_RETENTION, decodeVersionRetention(versionRetention));
            }
        }
        catch (TrinoException | NumberFormatException e) {
            throw new TrinoException(NSC_METADATA_ERROR, "Table %s has malformed properties %s: %s".formatted(tableName, stored, e.getMessage()), e);
        }
        return properties.buildOrThrow();
    }

    private static List<String> decodeColumnNames(String property, List<?> values)
    {
        List<String> names = values.stream()
                .map(value -> ((String) value).trim().toLowerCase(Locale.ENGLISH))
                .collect(toImmutableList());
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (name.isEmpty()) {
                throw new TrinoException(INVALID_TABLE_PROPERTY, "%s contains an empty column name".formatted(property));
            }
            if (!seen.add(name)) {
                throw new TrinoException(INVALID_TABLE_PROPERTY, "%s names column '%s' more than once".formatted(property, name));
            }
        }
        return names;
    }

    private static ParquetWriteCodec decodeCompressionCodec(String name)
    {
        try {
            return ParquetWriteCodec.parse(name);
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "Invalid %s: %s".formatted(COMPRESSION_CODEC, e.getMessage()), e);
        }
    }

    private static Duration decodeVersionRetention(String value)
    {
        Duration retention;
        try {
            retention = Duration.valueOf(value.trim());
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "%s must be a duration such as '7d' or '12h', not '%s'".formatted(VERSION_RETENTION, value), e);
        }
        if (retention.compareTo(MAX_VERSION_RETENTION) > 0) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "%s is %s, more than the longest allowed, %s".formatted(VERSION_RETENTION, value, toSql(MAX_VERSION_RETENTION)));
        }
        return retention;
    }

    /** '7d' or '36h' rather than Duration's '7.00d' or '1.50d': the largest unit that holds it whole, as a user would write it. */
    private static String toSql(Duration duration)
    {
        for (TimeUnit unit : List.of(DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS)) {
            double value = duration.getValue(unit);
            if (value == Math.rint(value)) {
                return "%d%s".formatted((long) value, Duration.timeUnitToString(unit));
            }
        }
        return duration.toString();
    }

    private static Integer decodeReplicaCount(String property, Integer count)
    {
        if (count == null || count < 1) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "%s must be at least 1, got %s".formatted(property, count));
        }
        return count;
    }
}

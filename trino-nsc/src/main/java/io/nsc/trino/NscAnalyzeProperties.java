package io.nsc.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.trino.spi.TrinoException;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.type.ArrayType;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.trino.spi.StandardErrorCode.INVALID_ANALYZE_PROPERTY;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * The properties of {@code ANALYZE t WITH (...)}: {@code columns}, the columns to analyze (all,
 * when unset), as Trino's Iceberg and Hive connectors name it.
 */
public final class NscAnalyzeProperties
{
    public static final String COLUMNS = "columns";

    public static final List<PropertyMetadata<?>> ANALYZE_PROPERTIES = ImmutableList.of(
            new PropertyMetadata<>(
                    COLUMNS,
                    "Columns to analyze (all when unset)",
                    new ArrayType(VARCHAR),
                    Set.class,
                    null,
                    false,
                    NscAnalyzeProperties::decodeColumns,
                    value -> value));

    private NscAnalyzeProperties() {}

    /** The columns named, when the property is set. */
    @SuppressWarnings("unchecked")
    public static Optional<Set<String>> getColumns(Map<String, Object> properties)
    {
        return Optional.ofNullable((Set<String>) properties.get(COLUMNS));
    }

    private static Set<String> decodeColumns(Object value)
    {
        ImmutableSet.Builder<String> columns = ImmutableSet.builder();
        for (Object name : (List<?>) value) {
            if (name == null) {
                throw new TrinoException(INVALID_ANALYZE_PROPERTY, "Invalid null value in analyze columns property");
            }
            columns.add(((String) name).toLowerCase(Locale.ROOT));
        }
        return columns.build();
    }
}

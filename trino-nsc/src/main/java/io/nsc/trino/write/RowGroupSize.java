package io.nsc.trino.write;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.airlift.units.DataSize;
import io.trino.spi.TrinoException;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.units.DataSize.Unit.BYTE;
import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.airlift.units.DataSize.Unit.TERABYTE;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;

/**
 * How big the row groups of a table's files are: either an exact row count (every row group but
 * the last of a file has exactly that many rows, so zone maps are predictable), or a data size
 * (trino-parquet's writer closes a row group once its buffered column data reach it). Exactly one
 * of {@code rows} and {@code bytes} is positive. Either way a writer closes a row group early
 * when it would outgrow the writer's memory (see {@link LocalParquetFile}).
 */
public record RowGroupSize(long rows, long bytes)
{
    public static final String PROPERTY_NAME = "row_group_size";
    public static final RowGroupSize DEFAULT = ofRows(100_000);

    public static final long MAX_ROWS = Integer.MAX_VALUE;
    public static final DataSize MIN_SIZE = DataSize.of(1, KILOBYTE);
    // trino-parquet keeps a row group's size in an int
    public static final DataSize MAX_SIZE = DataSize.of(1, GIGABYTE);

    private static final Pattern ROW_COUNT = Pattern.compile("\\s*(\\d{1,19})\\s*");
    private static final Pattern DATA_SIZE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]+)\\s*");
    // case-insensitive, so that '64mb' and '64MB' mean the same
    private static final Map<String, DataSize.Unit> UNITS = Map.of(
            "b", BYTE,
            "kb", KILOBYTE,
            "mb", MEGABYTE,
            "gb", GIGABYTE,
            "tb", TERABYTE);

    public RowGroupSize
    {
        checkArgument((rows > 0) != (bytes > 0), "exactly one of rows (%s) and bytes (%s) must be positive", rows, bytes);
        checkArgument(rows >= 0 && bytes >= 0, "rows (%s) and bytes (%s) must not be negative", rows, bytes);
    }

    public static RowGroupSize ofRows(long rows)
    {
        return new RowGroupSize(rows, 0);
    }

    public static RowGroupSize ofBytes(long bytes)
    {
        return new RowGroupSize(0, bytes);
    }

    @JsonIgnore
    public boolean isRowCount()
    {
        return rows > 0;
    }

    /**
     * Parses the SQL text of the table property: a row count such as {@code '100000'} or a data
     * size such as {@code '64MB'}.
     *
     * @throws TrinoException with INVALID_TABLE_PROPERTY for anything else
     */
    public static RowGroupSize parse(String text)
    {
        if (text == null) {
            throw invalid("null");
        }
        Matcher rowCount = ROW_COUNT.matcher(text);
        if (rowCount.matches()) {
            long rows;
            try {
                rows = Long.parseLong(rowCount.group(1));
            }
            catch (NumberFormatException e) {
                rows = Long.MAX_VALUE;
            }
            if (rows < 1 || rows > MAX_ROWS) {
                throw new TrinoException(INVALID_TABLE_PROPERTY, "%s must be between 1 and %s rows, got '%s'".formatted(PROPERTY_NAME, MAX_ROWS, text));
            }
            return ofRows(rows);
        }
        Matcher dataSize = DATA_SIZE.matcher(text);
        if (dataSize.matches()) {
            DataSize.Unit unit = UNITS.get(dataSize.group(2).toLowerCase(Locale.ENGLISH));
            if (unit != null) {
                DataSize size = DataSize.of(1, unit);
                long bytes = (long) Math.ceil(Double.parseDouble(dataSize.group(1)) * size.toBytes());
                if (bytes < MIN_SIZE.toBytes() || bytes > MAX_SIZE.toBytes()) {
                    throw new TrinoException(INVALID_TABLE_PROPERTY, "%s must be between %s and %s, got '%s'".formatted(PROPERTY_NAME, MIN_SIZE, MAX_SIZE, text));
                }
                return ofBytes(bytes);
            }
        }
        throw invalid("'" + text + "'");
    }

    /** The property's SQL text: what SHOW CREATE TABLE prints and the metadata service stores. */
    public String toSql()
    {
        if (isRowCount()) {
            return Long.toString(rows);
        }
        return DataSize.ofBytes(bytes).succinct().toString();
    }

    @Override
    public String toString()
    {
        return toSql() + (isRowCount() ? " rows" : "");
    }

    private static TrinoException invalid(String value)
    {
        return new TrinoException(INVALID_TABLE_PROPERTY, "Invalid %s %s: use a row count such as '100000' or a data size such as '64MB'".formatted(PROPERTY_NAME, value));
    }
}

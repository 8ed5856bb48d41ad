package io.nsc.tools.tpch;

import com.google.common.collect.ImmutableList;
import org.apache.parquet.format.CompressionCodec;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * @param rowsPerRowGroup most rows in one row group
 * @param rowsPerFile most rows in one file; the last row group of a file may be smaller
 * @param tables TPC-H table names to write; empty means all eight
 * @param compression codec for the column chunks
 */
public record TpchGeneratorOptions(int rowsPerRowGroup, long rowsPerFile, List<String> tables, CompressionCodec compression)
{
    public static final int DEFAULT_ROWS_PER_ROW_GROUP = 100_000;
    public static final long DEFAULT_ROWS_PER_FILE = 2_000_000;

    public TpchGeneratorOptions
    {
        checkArgument(rowsPerRowGroup > 0, "rowsPerRowGroup must be positive: %s", rowsPerRowGroup);
        checkArgument(rowsPerFile > 0, "rowsPerFile must be positive: %s", rowsPerFile);
        tables = ImmutableList.copyOf(requireNonNull(tables, "tables is null"));
        requireNonNull(compression, "compression is null");
    }

    public static TpchGeneratorOptions defaults()
    {
        return new TpchGeneratorOptions(DEFAULT_ROWS_PER_ROW_GROUP, DEFAULT_ROWS_PER_FILE, List.of(), CompressionCodec.ZSTD);
    }

    public TpchGeneratorOptions withRowsPerRowGroup(int rowsPerRowGroup)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression);
    }

    public TpchGeneratorOptions withRowsPerFile(long rowsPerFile)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression);
    }

    public TpchGeneratorOptions withTables(List<String> tables)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression);
    }

    public TpchGeneratorOptions withCompression(CompressionCodec compression)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression);
    }
}

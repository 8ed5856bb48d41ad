package io.nsc.tools.tpch;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.ParquetWriteCodec;
import org.apache.parquet.format.CompressionCodec;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * @param rowsPerRowGroup most rows in one row group
 * @param rowsPerFile most rows in one file; the last row group of a file may be smaller
 * @param tables TPC-H table names to write; empty means all eight
 * @param compression codec for the column chunks
 * @param sortRunRows most rows of a sorted table (lineitem, orders) held in memory at once; a
 *        larger table is sorted in runs of this many rows, spilled to disk and merged
 */
public record TpchGeneratorOptions(int rowsPerRowGroup, long rowsPerFile, List<String> tables, CompressionCodec compression, int sortRunRows)
{
    public static final int DEFAULT_ROWS_PER_ROW_GROUP = 100_000;
    public static final long DEFAULT_ROWS_PER_FILE = 2_000_000;
    // about 150 MB of lineitem in the sort buffer: a fraction of the tools' 4 GB heap
    public static final int DEFAULT_SORT_RUN_ROWS = 1_000_000;

    public TpchGeneratorOptions
    {
        checkArgument(rowsPerRowGroup > 0, "rowsPerRowGroup must be positive: %s", rowsPerRowGroup);
        checkArgument(rowsPerFile > 0, "rowsPerFile must be positive: %s", rowsPerFile);
        tables = ImmutableList.copyOf(requireNonNull(tables, "tables is null"));
        requireNonNull(compression, "compression is null");
        checkArgument(sortRunRows > 0, "sortRunRows must be positive: %s", sortRunRows);
    }

    public static TpchGeneratorOptions defaults()
    {
        return new TpchGeneratorOptions(DEFAULT_ROWS_PER_ROW_GROUP, DEFAULT_ROWS_PER_FILE, List.of(), ParquetWriteCodec.DEFAULT.parquetCodec(), DEFAULT_SORT_RUN_ROWS);
    }

    public TpchGeneratorOptions withRowsPerRowGroup(int rowsPerRowGroup)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression, sortRunRows);
    }

    public TpchGeneratorOptions withRowsPerFile(long rowsPerFile)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression, sortRunRows);
    }

    public TpchGeneratorOptions withTables(List<String> tables)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression, sortRunRows);
    }

    public TpchGeneratorOptions withCompression(CompressionCodec compression)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression, sortRunRows);
    }

    public TpchGeneratorOptions withSortRunRows(int sortRunRows)
    {
        return new TpchGeneratorOptions(rowsPerRowGroup, rowsPerFile, tables, compression, sortRunRows);
    }
}

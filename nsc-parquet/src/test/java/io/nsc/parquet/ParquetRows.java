package io.nsc.parquet;

import com.google.common.collect.ImmutableList;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.AbstractIntType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.joda.time.DateTimeZone;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static io.trino.parquet.metadata.PrunedBlockMetadata.createPrunedColumnsMetadata;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;

/** Reads small Parquet files back in tests, with trino-parquet, as plain Java values. */
public final class ParquetRows
{
    private ParquetRows() {}

    /**
     * Every row of a file as Java values: Long for bigint, Integer for integer and date (days since
     * the epoch), Double for double, String for varchar.
     */
    public static List<List<Object>> readRows(Path file, List<String> names, List<Type> types)
    {
        ParquetReaderOptions options = ParquetReaderOptions.defaultOptions();
        try (ParquetDataSource source = LocalParquetDataSource.open(file, options)) {
            ParquetMetadata metadata = MetadataReader.readFooter(source, Optional.empty());
            MessageType schema = metadata.getFileMetaData().getSchema();
            MessageColumnIO columnIO = getColumnIO(schema, schema);
            ImmutableList.Builder<io.trino.parquet.Column> columns = ImmutableList.builder();
            for (int i = 0; i < names.size(); i++) {
                columns.add(new io.trino.parquet.Column(names.get(i), constructField(types.get(i), lookupColumnByName(columnIO, names.get(i))).orElseThrow()));
            }
            Map<List<String>, ColumnDescriptor> descriptors = getDescriptors(schema, schema);
            ImmutableList.Builder<RowGroupInfo> rowGroups = ImmutableList.builder();
            long offset = 0;
            for (BlockMetadata block : metadata.getBlocks()) {
                rowGroups.add(new RowGroupInfo(createPrunedColumnsMetadata(block, source.getId(), descriptors), offset, Optional.empty()));
                offset += block.rowCount();
            }
            List<List<Object>> rows = new ArrayList<>();
            try (ParquetReader reader = new ParquetReader(
                    Optional.ofNullable(metadata.getFileMetaData().getCreatedBy()),
                    columns.build(),
                    false,
                    rowGroups.build(),
                    LocalParquetDataSource.open(file, options),
                    DateTimeZone.UTC,
                    newSimpleAggregatedMemoryContext(),
                    options,
                    RuntimeException::new,
                    Optional.empty(),
                    Optional.empty())) {
                for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                    rows.addAll(rows(page.getPage(), types));
                }
            }
            return rows;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every row of a page as Java values, typed as {@link #readRows} returns them. */
    public static List<List<Object>> rows(Page page, List<Type> types)
    {
        List<List<Object>> rows = new ArrayList<>(page.getPositionCount());
        for (int position = 0; position < page.getPositionCount(); position++) {
            List<Object> row = new ArrayList<>(types.size());
            for (int channel = 0; channel < types.size(); channel++) {
                row.add(value(types.get(channel), page.getBlock(channel), position));
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object value(Type type, Block block, int position)
    {
        if (type.equals(BIGINT)) {
            return BIGINT.getLong(block, position);
        }
        if (type instanceof AbstractIntType intType) {
            return intType.getInt(block, position);
        }
        if (type.equals(DOUBLE)) {
            return DOUBLE.getDouble(block, position);
        }
        if (type instanceof VarcharType varchar) {
            return varchar.getSlice(block, position).toStringUtf8();
        }
        throw new IllegalArgumentException("Unsupported type " + type);
    }
}

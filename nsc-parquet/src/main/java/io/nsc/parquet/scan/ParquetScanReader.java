package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.types.ColumnDecoding;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.Column;
import io.trino.parquet.Field;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.metadata.PrunedBlockMetadata;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.joda.time.DateTimeZone;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static java.util.Objects.requireNonNull;

/**
 * trino-parquet's reader over chosen row groups and columns of one nsc file, wherever the bytes
 * come from: the worker reads ranges from storage nodes, the storage node its local disk. Pages
 * hold the columns in the order asked, as their Trino types.
 */
public final class ParquetScanReader
        implements Closeable
{
    private final ParquetReader reader;
    private final List<Optional<UnaryOperator<Block>>> conversions;
    private final Function<RuntimeException, RuntimeException> badData;

    private ParquetScanReader(ParquetReader reader, List<Optional<UnaryOperator<Block>>> conversions, Function<RuntimeException, RuntimeException> badData)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.conversions = ImmutableList.copyOf(conversions);
        this.badData = requireNonNull(badData, "badData is null");
    }

    /**
     * @param badData turns a failure to decode (or a bad footer) into the caller's error, naming the file
     */
    public static ParquetScanReader create(
            ParquetDataSource dataSource,
            ParquetMetadata footer,
            List<Integer> rowGroups,
            List<FileColumn> columns,
            ParquetReaderOptions options,
            AggregatedMemoryContext memoryContext,
            Function<RuntimeException, RuntimeException> badData)
            throws IOException
    {
        List<ColumnDecoding> decodings = columns.stream()
                .map(column -> ColumnDecoding.forType(column.type()))
                .collect(toImmutableList());
        MessageType fileSchema = footer.getFileMetaData().getSchema();
        // Columns are matched by position: every file of a table has exactly the table's top-level
        // columns in order (checked at load), whatever the case of their names in the file.
        for (FileColumn column : columns) {
            if (column.ordinal() >= fileSchema.getFieldCount()) {
                throw badData.apply(new IllegalArgumentException("file has %s columns, scan asks for column %s".formatted(fileSchema.getFieldCount(), column.ordinal())));
            }
        }
        List<Type> fileFields = columns.stream()
                .map(column -> fileSchema.getType(column.ordinal()))
                .collect(toImmutableList());
        MessageType requestedSchema = new MessageType(fileSchema.getName(), fileFields.stream().distinct().collect(toImmutableList()));
        MessageColumnIO messageColumnIO = getColumnIO(fileSchema, requestedSchema);
        Map<List<String>, ColumnDescriptor> descriptorsByPath = getDescriptors(fileSchema, requestedSchema);

        ImmutableList.Builder<Column> parquetColumns = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            String fileColumnName = fileFields.get(i).getName();
            ColumnIO columnIO = lookupColumnByName(messageColumnIO, fileColumnName);
            Field field = constructField(decodings.get(i).readType(), columnIO)
                    .orElseThrow(() -> badData.apply(new IllegalArgumentException("file has no column " + fileColumnName)));
            parquetColumns.add(new Column(fileColumnName, field));
        }

        List<BlockMetadata> blocks = footer.getBlocks();
        ImmutableList.Builder<RowGroupInfo> rowGroupInfos = ImmutableList.builder();
        for (int rowGroup : rowGroups) {
            if (rowGroup < 0 || rowGroup >= blocks.size()) {
                throw badData.apply(new IllegalArgumentException("file has %s row groups, scan asks for row group %s".formatted(blocks.size(), rowGroup)));
            }
            BlockMetadata block = blocks.get(rowGroup);
            PrunedBlockMetadata prunedBlock = PrunedBlockMetadata.createPrunedColumnsMetadata(block, dataSource.getId(), descriptorsByPath);
            rowGroupInfos.add(new RowGroupInfo(prunedBlock, block.fileRowCountOffset(), Optional.empty()));
        }

        ParquetReader reader = new ParquetReader(
                Optional.ofNullable(footer.getFileMetaData().getCreatedBy()),
                parquetColumns.build(),
                false,
                rowGroupInfos.build(),
                dataSource,
                DateTimeZone.UTC,
                memoryContext,
                options,
                exception -> exception instanceof RuntimeException runtime ? badData.apply(runtime) : badData.apply(new RuntimeException(exception.getMessage(), exception)),
                Optional.empty(),
                Optional.empty());
        return new ParquetScanReader(reader, decodings.stream().map(ColumnDecoding::conversion).collect(toImmutableList()), badData);
    }

    /**
     * The next page, its columns decoded when first used; null after the last row group.
     */
    public SourcePage nextPage()
            throws IOException
    {
        SourcePage page;
        try {
            page = reader.nextPage();
        }
        catch (RuntimeException e) {
            throw badData.apply(e);
        }
        return page == null ? null : new DecodedSourcePage(page, conversions, badData);
    }

    @Override
    public void close()
            throws IOException
    {
        reader.close();
    }
}

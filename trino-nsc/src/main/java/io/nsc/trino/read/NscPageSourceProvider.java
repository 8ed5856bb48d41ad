package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.split.NscSplit;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.Column;
import io.trino.parquet.Field;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.metadata.PrunedBlockMetadata;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.HostAddress;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.joda.time.DateTimeZone;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static java.util.Objects.requireNonNull;

public class NscPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final StorageClients storageClients;
    private final FooterCache footerCache;
    private final ParquetReaderOptions readerOptions;
    private final long storageTimeoutMillis;

    @Inject
    public NscPageSourceProvider(StorageClients storageClients, FooterCache footerCache, NscConfig config)
    {
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.footerCache = requireNonNull(footerCache, "footerCache is null");
        // the coordinator already pruned row groups with the compact stats; page-level indexes are not used yet
        this.readerOptions = ParquetReaderOptions.builder().withUseColumnIndex(false).build();
        this.storageTimeoutMillis = config.getStorageTimeout().toMillis();
    }

    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter)
    {
        NscSplit nscSplit = (NscSplit) split;
        List<NscColumnHandle> nscColumns = columns.stream()
                .map(NscColumnHandle.class::cast)
                .collect(toImmutableList());
        if (nscColumns.isEmpty()) {
            return new RowCountPageSource(nscSplit.rowCount());
        }

        RemoteParquetDataSource dataSource = new RemoteParquetDataSource(
                nscSplit.fileId(),
                nscSplit.fileSize(),
                nscSplit.addresses().stream().map(HostAddress::toString).collect(toImmutableList()),
                storageClients,
                readerOptions,
                storageTimeoutMillis);
        ParquetMetadata footer = footerCache.get(nscSplit.fileId(), dataSource);
        AggregatedMemoryContext memoryContext = newSimpleAggregatedMemoryContext();
        try {
            List<ColumnDecoding> decodings = nscColumns.stream()
                    .map(column -> ColumnDecoding.forType(column.type()))
                    .collect(toImmutableList());
            ParquetReader reader = createReader(nscSplit, nscColumns, decodings, footer, dataSource, memoryContext);
            return new NscPageSource(reader, dataSource, memoryContext, nscSplit.fileId(), decodings.stream().map(ColumnDecoding::conversion).collect(toImmutableList()));
        }
        catch (IOException | RuntimeException e) {
            if (e instanceof TrinoException trinoException) {
                throw trinoException;
            }
            throw new TrinoException(NSC_BAD_DATA, "Cannot open nsc file %s: %s".formatted(nscSplit.fileId(), e.getMessage()), e);
        }
    }

    private ParquetReader createReader(
            NscSplit split,
            List<NscColumnHandle> columns,
            List<ColumnDecoding> decodings,
            ParquetMetadata footer,
            RemoteParquetDataSource dataSource,
            AggregatedMemoryContext memoryContext)
            throws IOException
    {
        MessageType fileSchema = footer.getFileMetaData().getSchema();
        // Columns are matched by position: every file of a table has exactly the table's top-level
        // columns in order (checked at load), whatever the case of their names in the file.
        List<Type> fileFields = columns.stream()
                .map(column -> fileSchema.getType(column.ordinal()))
                .collect(toImmutableList());
        MessageType requestedSchema = new MessageType(fileSchema.getName(), fileFields.stream().distinct().collect(toImmutableList()));
        MessageColumnIO messageColumnIO = getColumnIO(fileSchema, requestedSchema);
        Map<List<String>, ColumnDescriptor> descriptorsByPath = getDescriptors(fileSchema, requestedSchema);

        ImmutableList.Builder<Column> parquetColumns = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            NscColumnHandle column = columns.get(i);
            String fileColumnName = fileFields.get(i).getName();
            ColumnIO columnIO = lookupColumnByName(messageColumnIO, fileColumnName);
            Field field = constructField(decodings.get(i).readType(), columnIO)
                    .orElseThrow(() -> new TrinoException(NSC_BAD_DATA, "nsc file %s has no column %s".formatted(split.fileId(), fileColumnName)));
            parquetColumns.add(new Column(column.name(), field));
        }

        List<BlockMetadata> blocks = footer.getBlocks();
        ImmutableList.Builder<RowGroupInfo> rowGroups = ImmutableList.builder();
        for (int rowGroup : split.rowGroups()) {
            if (rowGroup >= blocks.size()) {
                throw new TrinoException(NSC_BAD_DATA, "nsc file %s has %s row groups, split asks for row group %s".formatted(split.fileId(), blocks.size(), rowGroup));
            }
            BlockMetadata block = blocks.get(rowGroup);
            PrunedBlockMetadata prunedBlock = PrunedBlockMetadata.createPrunedColumnsMetadata(block, dataSource.getId(), descriptorsByPath);
            rowGroups.add(new RowGroupInfo(prunedBlock, block.fileRowCountOffset(), Optional.empty()));
        }

        return new ParquetReader(
                Optional.ofNullable(footer.getFileMetaData().getCreatedBy()),
                parquetColumns.build(),
                false,
                rowGroups.build(),
                dataSource,
                DateTimeZone.UTC,
                memoryContext,
                readerOptions,
                exception -> exception instanceof TrinoException trinoException
                        ? trinoException
                        : new TrinoException(NSC_BAD_DATA, "Cannot decode nsc file %s: %s".formatted(split.fileId(), exception.getMessage()), exception),
                Optional.empty(),
                Optional.empty());
    }
}

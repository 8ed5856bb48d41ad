package io.nsc.trino.read;

import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.filter.RowFilter;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.parquet.scan.FilteredScan;
import io.nsc.parquet.scan.ParquetScanReader;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.protocol.proto.ScanAggregate;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanSortKey;
import io.nsc.trino.NscConfig;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.nsc.trino.delete.RowIdPageSource;
import io.nsc.trino.metadata.NscAggregateColumnHandle;
import io.nsc.trino.metadata.NscAggregation;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.NscTopN;
import io.nsc.trino.split.DynamicFilterDomains;
import io.nsc.trino.split.LateDynamicFilter;
import io.nsc.trino.split.NscAggregationSplit;
import io.nsc.trino.split.NscSplit;
import io.nsc.trino.split.ScanMode;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
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
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static io.nsc.trino.NscSessionProperties.getDynamicFilteringProbeWaitTimeout;
import static io.nsc.trino.NscSessionProperties.getPushdown;
import static io.nsc.trino.NscSessionProperties.getRawReadMaxMergeDistance;
import static io.nsc.trino.NscSessionProperties.isAdaptiveScanModes;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Reads a split the way the coordinator chose, or in {@code auto} the way this worker's
 * measurements of the scan's earlier splits favour ({@link AdaptiveScanModes}): a storage-side
 * scan, or raw byte ranges decoded here. A raw split of a table whose predicate the connector
 * enforces is filtered here with the same row filter the storage node uses.
 */
public class NscPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final StorageClients storageClients;
    private final FooterCache footerCache;
    private final long storageTimeoutMillis;
    private final NscConfig config;
    private final ScanFanOut fanOut;
    private final AdaptiveScanModes adaptiveModes;
    private final StorageNodeLoad nodeLoad;
    private final BusyStorageNodes busyNodes;

    @Inject
    public NscPageSourceProvider(StorageClients storageClients, FooterCache footerCache, ScanFanOut fanOut, AdaptiveScanModes adaptiveModes, StorageNodeLoad nodeLoad, BusyStorageNodes busyNodes, NscConfig config)
    {
        this.busyNodes = requireNonNull(busyNodes, "busyNodes is null");
        this.nodeLoad = requireNonNull(nodeLoad, "nodeLoad is null");
        this.adaptiveModes = requireNonNull(adaptiveModes, "adaptiveModes is null");
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.fanOut = requireNonNull(fanOut, "fanOut is null");
        this.footerCache = requireNonNull(footerCache, "footerCache is null");
        this.config = requireNonNull(config, "config is null");
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
        NscTableHandle handle = (NscTableHandle) table;
        if (split instanceof NscAggregationSplit aggregationSplit) {
            return aggregationScan(session, aggregationSplit, handle, columns);
        }
        NscSplit nscSplit = (NscSplit) split;
        // a DELETE's scan names each row by its position in the file: only a raw read knows it
        OptionalInt rowIdChannel = IntStream.range(0, columns.size()).filter(channel -> columns.get(channel) instanceof NscRowIdColumnHandle).findFirst();
        if (rowIdChannel.isEmpty() && nscSplit.awaitsDynamicFilter() && dynamicFilter.isAwaitable() && dynamicFilter.getCurrentPredicate().isAll()) {
            // planned before the join's filter, which has not reached this worker yet either
            return new DynamicFilterAwaitingPageSource(
                    dynamicFilter.isBlocked(),
                    getDynamicFilteringProbeWaitTimeout(session).toMillis(),
                    () -> open(session, nscSplit, handle, columns, dynamicFilter, rowIdChannel));
        }
        return open(session, nscSplit, handle, columns, dynamicFilter, rowIdChannel);
    }

    private ConnectorPageSource open(ConnectorSession session, NscSplit nscSplit, NscTableHandle handle, List<ColumnHandle> columns, DynamicFilter dynamicFilter, OptionalInt rowIdChannel)
    {
        if (rowIdChannel.isEmpty() && nscSplit.rowGroupStats().isPresent()) {
            // the scan takes the filter its mode was chosen with
            TupleDomain<NscColumnHandle> dynamic = DynamicFilterDomains.ofTableColumns(dynamicFilter.getCurrentPredicate());
            ScanMode mode = LateDynamicFilter.mode(handle, nscSplit, dynamic, nodeLoad.get(nscSplit.addresses().getFirst().toString()));
            if (mode != nscSplit.mode()) {
                return new CountedPageSource(
                        read(session, mode, nscSplit, handle, columns, () -> dynamic, rowIdChannel),
                        ReadMetrics.SPLITS_FILTER_AFTER_DYNAMIC_FILTER);
            }
        }
        if (!adapts(session, handle, columns, rowIdChannel)) {
            return read(session, nscSplit.mode(), nscSplit, handle, columns, dynamicFilterDomains(dynamicFilter), rowIdChannel);
        }
        boolean nodeSharesCpus = nodeLoad.get(nscSplit.addresses().getFirst().toString()).sharesCpus();
        AdaptiveScanModes.Choice choice = adaptiveModes.start(session.getQueryId(), new AdaptiveScanModes.ScanShape(handle, columns), nscSplit.mode(), nodeSharesCpus);
        return new MeasuredPageSource(read(session, choice.mode(), nscSplit, handle, columns, dynamicFilterDomains(dynamicFilter), rowIdChannel), choice, nscSplit.rowCount());
    }

    /** The filter as it stands when a storage scan's request is made, computed only for one. */
    private static Supplier<TupleDomain<NscColumnHandle>> dynamicFilterDomains(DynamicFilter dynamicFilter)
    {
        return () -> DynamicFilterDomains.ofTableColumns(dynamicFilter.getCurrentPredicate());
    }

    /**
     * Whether {@code auto} may read this split either way: both return the same rows when the
     * connector enforces the whole predicate (a raw read filters here as a storage node would).
     */
    private static boolean adapts(ConnectorSession session, NscTableHandle handle, List<ColumnHandle> columns, OptionalInt rowIdChannel)
    {
        return getPushdown(session) == PushdownMode.AUTO
                && isAdaptiveScanModes(session)
                && rowIdChannel.isEmpty()
                && !columns.isEmpty()
                && (handle.constraintEnforced() || handle.constraint().isAll());
    }

    private ConnectorPageSource read(ConnectorSession session, ScanMode mode, NscSplit nscSplit, NscTableHandle handle, List<ColumnHandle> columns, Supplier<TupleDomain<NscColumnHandle>> dynamicFilter, OptionalInt rowIdChannel)
    {
        TupleDomain<NscColumnHandle> predicate = handle.constraintEnforced() ? handle.constraint() : TupleDomain.all();
        if (mode == ScanMode.FILTER && rowIdChannel.isEmpty()) {
            // the storage node drops rows the join cannot use before they cross the network
            TupleDomain<NscColumnHandle> dynamic = dynamicFilter.get();
            // when every replica is too busy: the same split read raw, filtered here by the enforced predicate (the engine
            // applies the dynamic filter, the limit and the top-N, which it does not leave to the connector)
            Supplier<ConnectorPageSource> raw = () -> rawRead(session, nscSplit, handle, columns, predicate, rowIdChannel);
            return storageScan(nscSplit, handle, columns, predicate.intersect(dynamic), Optional.of(raw));
        }
        return rawRead(session, nscSplit, handle, columns, predicate, rowIdChannel);
    }

    private ConnectorPageSource rawRead(ConnectorSession session, NscSplit nscSplit, NscTableHandle handle, List<ColumnHandle> columns, TupleDomain<NscColumnHandle> predicate, OptionalInt rowIdChannel)
    {
        ScanColumns scanColumns = ScanColumns.create(columns, predicate, handle);
        if (columns.isEmpty() && !scanColumns.filters()) {
            return new RowCountPageSource(min(nscSplit.rowCount(), handle.limit().orElse(Long.MAX_VALUE)));
        }

        ParquetReaderOptions options = readerOptions(session);
        RemoteParquetDataSource dataSource = new RemoteParquetDataSource(
                nscSplit.fileId(),
                nscSplit.fileSize(),
                nscSplit.addresses().stream().map(HostAddress::toString).collect(toImmutableList()),
                storageClients,
                options,
                storageTimeoutMillis);
        ParquetMetadata footer = footerCache.get(nscSplit.fileId(), dataSource);
        dataSource.footerRead();
        AggregatedMemoryContext memoryContext = newSimpleAggregatedMemoryContext();
        try {
            TupleDomain<Integer> pagePredicate = handle.constraintEnforced() ? scanColumns.predicate() : scanColumns.onDecodedColumns(handle.constraint());
            ParquetScanReader reader = createReader(nscSplit, scanColumns.columns(), pagePredicate, options, footer, dataSource, memoryContext);
            if (scanColumns.decodesOutputOnly() && handle.limit().isEmpty()) {
                return withRowIds(NscPageSource.decoding(reader, dataSource, memoryContext, nscSplit.fileId()), rowIdChannel, nscSplit);
            }
            FilteredScan scan = new FilteredScan(
                    reader,
                    scanColumns.computed(),
                    RowFilter.create(scanColumns.predicate(), scanColumns.expressions(), scanColumns.types()),
                    scanColumns.outputChannels(),
                    handle.limit().orElse(Long.MAX_VALUE));
            return withRowIds(NscPageSource.filtering(scan, dataSource, memoryContext, nscSplit.fileId()), rowIdChannel, nscSplit);
        }
        catch (IOException | RuntimeException e) {
            if (e instanceof TrinoException trinoException) {
                throw trinoException;
            }
            throw new TrinoException(NSC_BAD_DATA, "Cannot open nsc file %s: %s".formatted(nscSplit.fileId(), e.getMessage()), e);
        }
    }

    /**
     * trino-parquet's default suits object stores, where a request costs tens of milliseconds: it
     * reads ranges less than 1MB apart as one. Over nsc's link a request may cost less than the
     * bytes between the columns a query reads.
     */
    private ParquetReaderOptions readerOptions(ConnectorSession session)
    {
        DataSize mergeDistance = getRawReadMaxMergeDistance(session);
        // page indexes on (trino-parquet's default): they prune pages within the row groups the coordinator kept
        return ParquetReaderOptions.builder()
                .withMaxMergeDistance(mergeDistance)
                .build();
    }

    /** A raw scan's row positions (the row id's channel) turned into row ids, when the engine asks for them. */
    private static ConnectorPageSource withRowIds(ConnectorPageSource scan, OptionalInt rowIdChannel, NscSplit split)
    {
        return rowIdChannel.isEmpty() ? scan : new RowIdPageSource(scan, rowIdChannel.getAsInt(), split.fileId());
    }

    private ConnectorPageSource storageScan(NscSplit split, NscTableHandle handle, List<ColumnHandle> columns, TupleDomain<NscColumnHandle> predicate, Optional<Supplier<ConnectorPageSource>> fallback)
    {
        ScanRequest.Builder request = scanRequest(ScanColumns.create(columns, predicate, handle))
                .setLimit(handle.limit().orElse(0));
        handle.topN()
                .filter(topN -> topN.order().stream().allMatch(item -> columns.contains(item.column())))
                .ifPresent(topN -> {
                    request.setTopN(topN.count());
                    for (NscTopN.SortItem item : topN.order()) {
                        request.addOrder(ScanSortKey.newBuilder()
                                .setColumn(columns.indexOf(item.column()))
                                .setAscending(item.ascending())
                                .setNullsFirst(item.nullsFirst()));
                    }
                });
        return partScan(request.build(), split, fallback);
    }

    private StorageScanPageSource partScan(ScanRequest template, NscSplit split, Optional<Supplier<ConnectorPageSource>> fallback)
    {
        return new StorageScanPageSource(
                forPart(template, split),
                split.addresses().stream().map(HostAddress::toString).collect(toImmutableList()),
                storageClients,
                config.getScanTimeout().toMillis(),
                fallback,
                busyNodes);
    }

    private static ScanRequest forPart(ScanRequest template, NscSplit part)
    {
        return template.toBuilder()
                .setFileId(part.fileId())
                .clearRowGroups()
                .addAllRowGroups(part.rowGroups())
                .build();
    }

    private ScanRequest.Builder scanRequest(ScanColumns scanColumns)
    {
        int[] outputChannels = scanColumns.outputChannels();
        ScanRequest.Builder request = ScanRequest.newBuilder()
                .setPredicate(TupleDomainCodec.encode(scanColumns.predicate(), scanColumns.types()))
                .addAllFilters(scanColumns.expressions().stream().map(RowExpressionCodec::encode).toList())
                .addAllComputed(scanColumns.computed().stream().map(RowExpressionCodec::encode).toList())
                .addAllOutputChannels(Arrays.stream(outputChannels).boxed().toList())
                .setCompression(config.getScanCompression().wire())
                .setTargetBatchBytes(toIntExact(config.getScanBatchSize().toBytes()));
        for (int channel = 0; channel < scanColumns.columns().size(); channel++) {
            FileColumn column = scanColumns.columns().get(channel);
            int columnChannel = channel;
            request.addColumns(ScanColumn.newBuilder()
                    .setOrdinal(column.ordinal())
                    .setType(column.type().getTypeSignature().toString())
                    // what a node that predates output_channels sends
                    .setOutput(Arrays.stream(outputChannels).anyMatch(output -> output == columnChannel)));
        }
        return request;
    }

    /**
     * The storage nodes group by the keys and compute partial states over the outputs: the keys
     * first, then each aggregate input not already a key.
     */
    private ConnectorPageSource aggregationScan(ConnectorSession session, NscAggregationSplit split, NscTableHandle handle, List<ColumnHandle> columns)
    {
        NscAggregation aggregation = handle.aggregation().orElseThrow(() -> new IllegalStateException("aggregation split of a table without aggregation"));
        List<ColumnHandle> outputs = new ArrayList<>(aggregation.groupBy());
        for (NscAggregateColumnHandle aggregate : aggregation.aggregates()) {
            aggregate.inputHandle().filter(input -> !outputs.contains(input)).ifPresent(outputs::add);
        }
        TupleDomain<NscColumnHandle> predicate = handle.constraintEnforced() ? handle.constraint() : TupleDomain.all();
        ScanRequest.Builder template = scanRequest(ScanColumns.create(outputs, predicate, handle)).setAggregate(true);
        for (int key = 0; key < aggregation.groupBy().size(); key++) {
            template.addGroupBy(key);
        }
        for (NscAggregateColumnHandle aggregate : aggregation.aggregates()) {
            template.addAggregates(ScanAggregate.newBuilder()
                    .setFunction(aggregate.kind().wire())
                    .setInput(aggregate.inputHandle().map(outputs::indexOf).orElse(0)));
        }
        int[] outputChannels = columns.stream()
                .mapToInt(column -> switch (column) {
                    case NscColumnHandle key -> aggregation.groupBy().indexOf(key);
                    case NscAggregateColumnHandle aggregate -> aggregation.groupBy().size() + aggregation.aggregates().indexOf(aggregate);
                    default -> -1;
                })
                .toArray();
        if (Arrays.stream(outputChannels).anyMatch(channel -> channel < 0)) {
            throw new IllegalArgumentException("columns %s are not the aggregation's outputs %s".formatted(columns, aggregation));
        }
        ScanRequest request = template.build();
        List<Type> groupTypes = aggregation.groupBy().stream().map(NscColumnHandle::type).collect(toImmutableList());
        List<AggregateSpec> specs = aggregation.aggregates().stream().map(NscAggregateColumnHandle::spec).collect(toImmutableList());
        // a part no replica has room to scan: its rows read raw and folded here into the partial states a node would send
        int[] groupChannels = IntStream.range(0, aggregation.groupBy().size()).toArray();
        int[] inputChannels = request.getAggregatesList().stream().mapToInt(ScanAggregate::getInput).toArray();
        List<ColumnHandle> rawColumns = List.copyOf(outputs);
        return new AggregationPageSource(
                split.parts(),
                split.statsAnswer(),
                part -> partScan(request, part, Optional.of(() -> new PartialAggregationPageSource(
                        rawRead(session, part, handle, rawColumns, predicate, OptionalInt.empty()),
                        groupTypes,
                        specs,
                        groupChannels,
                        inputChannels))),
                groupTypes,
                specs,
                outputChannels,
                fanOut.executor());
    }

    private ParquetScanReader createReader(
            NscSplit split,
            List<FileColumn> columns,
            TupleDomain<Integer> predicate,
            ParquetReaderOptions options,
            ParquetMetadata footer,
            RemoteParquetDataSource dataSource,
            AggregatedMemoryContext memoryContext)
            throws IOException
    {
        // the pages the predicate rules out are never read: the filter after the reader (or the engine) would drop all their rows
        return ParquetScanReader.create(
                dataSource,
                footer,
                split.rowGroups(),
                columns,
                predicate,
                options,
                memoryContext,
                exception -> exception instanceof TrinoException trinoException
                        ? trinoException
                        : new TrinoException(NSC_BAD_DATA, "Cannot decode nsc file %s: %s".formatted(split.fileId(), exception.getMessage()), exception));
    }
}

package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.types.ColumnDecoding;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.Column;
import io.trino.parquet.Field;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.metadata.PrunedBlockMetadata;
import io.trino.parquet.predicate.TupleDomainParquetPredicate;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.VarcharType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.joda.time.DateTimeZone;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static io.trino.parquet.predicate.PredicateUtils.buildPredicate;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * trino-parquet's reader over chosen row groups and columns of one nsc file, wherever the bytes
 * come from: the worker reads ranges from storage nodes, the storage node its local disk. Pages
 * hold the columns in the order asked, as their Trino types.
 * <p>
 * A column past the file's last is one the table gained after the file was written (ALTER TABLE
 * ... ADD COLUMN): it reads as NULL. {@link FileColumn#rowPosition()} reads as each row's place in
 * the file. When no column asked for is in the file, no column is decoded at all: each row group
 * is one page of NULLs (and row positions).
 */
public final class ParquetScanReader
        implements Closeable
{
    private final Optional<ParquetReader> reader;
    // the row groups still to read, when no column is decoded
    private final Iterator<BlockMetadata> rowGroupsLeft;
    private final List<Optional<UnaryOperator<Block>>> conversions;
    // per column asked for: its channel among the decoded ones, MissingColumnsSourcePage.NULLS when
    // the file lacks it, or MissingColumnsSourcePage.ROW_POSITIONS
    private final int[] decodedChannels;
    private final List<io.trino.spi.type.Type> types;
    private final Function<RuntimeException, RuntimeException> badData;

    private ParquetScanReader(Optional<ParquetReader> reader, Iterator<BlockMetadata> rowGroupsLeft, List<Optional<UnaryOperator<Block>>> conversions, int[] decodedChannels, List<io.trino.spi.type.Type> types, Function<RuntimeException, RuntimeException> badData)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.rowGroupsLeft = requireNonNull(rowGroupsLeft, "rowGroupsLeft is null");
        this.conversions = ImmutableList.copyOf(conversions);
        this.decodedChannels = decodedChannels.clone();
        this.types = ImmutableList.copyOf(types);
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
        return create(dataSource, footer, rowGroups, columns, TupleDomain.all(), options, memoryContext, badData);
    }

    /**
     * A reader that also skips the pages a row group's Parquet page index (column and offset
     * indexes) shows cannot match {@code pagePredicate}, where the file has one and
     * {@code options} allow it, reading the indexes from {@code dataSource} for this scan.
     */
    public static ParquetScanReader create(
            ParquetDataSource dataSource,
            ParquetMetadata footer,
            List<Integer> rowGroups,
            List<FileColumn> columns,
            TupleDomain<Integer> pagePredicate,
            ParquetReaderOptions options,
            AggregatedMemoryContext memoryContext,
            Function<RuntimeException, RuntimeException> badData)
            throws IOException
    {
        return create(dataSource, footer, rowGroups, columns, pagePredicate, PageIndexLoader.reading(dataSource), options, memoryContext, badData);
    }

    /**
     * A reader that also skips the pages a row group's Parquet page index (column and offset
     * indexes) shows cannot match {@code pagePredicate}, where the file has one and
     * {@code options} allow it. Pages hold fewer rows then, so the caller still filters every row;
     * and no page is skipped when row positions are asked for, which count the rows read.
     * <p>
     * A row group's indexes are used only where they can skip something: its statistics hold
     * values the predicate rules out, and the pages of a filtered column are in order. Otherwise
     * trino-parquet's page filter costs CPU and saves nothing, and the indexes are not even read
     * when the statistics already show every row may match.
     *
     * @param pagePredicate over the positions in {@code columns}; positions past them are ignored
     * @param pageIndexes where the indexes of a row group come from
     */
    public static ParquetScanReader create(
            ParquetDataSource dataSource,
            ParquetMetadata footer,
            List<Integer> rowGroups,
            List<FileColumn> columns,
            TupleDomain<Integer> pagePredicate,
            PageIndexLoader pageIndexes,
            ParquetReaderOptions options,
            AggregatedMemoryContext memoryContext,
            Function<RuntimeException, RuntimeException> badData)
            throws IOException
    {
        MessageType fileSchema = footer.getFileMetaData().getSchema();
        // Columns are matched by position: every file of a table has the table's top-level columns
        // in order (checked at load and commit) as they were when it was written, whatever the
        // case of their names in the file; columns added since are past its last.
        int[] decodedChannels = new int[columns.size()];
        List<FileColumn> decoded = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            FileColumn column = columns.get(i);
            if (column.isRowPosition()) {
                decodedChannels[i] = MissingColumnsSourcePage.ROW_POSITIONS;
                continue;
            }
            boolean inFile = column.ordinal() < fileSchema.getFieldCount();
            decodedChannels[i] = inFile ? decoded.size() : MissingColumnsSourcePage.NULLS;
            if (inFile) {
                decoded.add(column);
            }
        }
        List<io.trino.spi.type.Type> types = columns.stream().map(FileColumn::type).collect(toImmutableList());
        List<BlockMetadata> blocks = footer.getBlocks();
        for (int rowGroup : rowGroups) {
            if (rowGroup < 0 || rowGroup >= blocks.size()) {
                throw badData.apply(new IllegalArgumentException("file has %s row groups, scan asks for row group %s".formatted(blocks.size(), rowGroup)));
            }
        }
        if (decoded.isEmpty()) {
            Iterator<BlockMetadata> rowGroupsLeft = rowGroups.stream().map(blocks::get).filter(block -> block.rowCount() > 0).iterator();
            return new ParquetScanReader(Optional.empty(), rowGroupsLeft, List.of(), decodedChannels, types, badData);
        }
        List<ColumnDecoding> decodings = decoded.stream()
                .map(column -> ColumnDecoding.forType(column.type()))
                .collect(toImmutableList());
        List<Type> fileFields = decoded.stream()
                .map(column -> fileSchema.getType(column.ordinal()))
                .collect(toImmutableList());
        MessageType requestedSchema = new MessageType(fileSchema.getName(), fileFields.stream().distinct().collect(toImmutableList()));
        MessageColumnIO messageColumnIO = getColumnIO(fileSchema, requestedSchema);
        Map<List<String>, ColumnDescriptor> descriptorsByPath = getDescriptors(fileSchema, requestedSchema);

        ImmutableList.Builder<Column> parquetColumns = ImmutableList.builder();
        for (int i = 0; i < decoded.size(); i++) {
            String fileColumnName = fileFields.get(i).getName();
            ColumnIO columnIO = lookupColumnByName(messageColumnIO, fileColumnName);
            Field field = constructField(decodings.get(i).readType(), columnIO)
                    .orElseThrow(() -> badData.apply(new IllegalArgumentException("file has no column " + fileColumnName)));
            parquetColumns.add(new Column(fileColumnName, field));
        }

        TupleDomain<ColumnDescriptor> pageDomain = pageIndexDomain(pagePredicate, columns, decodedChannels, decodings, fileFields, descriptorsByPath);
        Set<ColumnPath> pageIndexColumns = pageDomain.getDomains().orElse(Map.of()).keySet().stream()
                .map(descriptor -> ColumnPath.get(descriptor.getPath()))
                .collect(toImmutableSet());
        Set<ColumnPath> readColumns = descriptorsByPath.values().stream()
                .map(descriptor -> ColumnPath.get(descriptor.getPath()))
                .collect(toImmutableSet());
        ImmutableList.Builder<RowGroupInfo> rowGroupInfos = ImmutableList.builder();
        for (int rowGroup : rowGroups) {
            BlockMetadata block = blocks.get(rowGroup);
            PrunedBlockMetadata prunedBlock = PrunedBlockMetadata.createPrunedColumnsMetadata(block, dataSource.getId(), descriptorsByPath);
            Optional<ColumnIndexStore> pageIndex = options.isUseColumnIndex() && !pageDomain.isAll() && hasSeveralPages(block, pageIndexColumns) && mayRuleOutRows(block, pageDomain, dataSource.getId())
                    ? skippingIndexes(pageIndexes.load(rowGroup, block, readColumns), pageIndexColumns)
                    : Optional.empty();
            rowGroupInfos.add(new RowGroupInfo(prunedBlock, block.fileRowCountOffset(), pageIndex));
        }
        Optional<TupleDomainParquetPredicate> pagePredicateOfFile = pageDomain.isAll()
                ? Optional.empty()
                : Optional.of(buildPredicate(requestedSchema, pageDomain, descriptorsByPath, DateTimeZone.UTC));

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
                pagePredicateOfFile,
                Optional.empty());
        return new ParquetScanReader(Optional.of(reader), Collections.emptyIterator(), decodings.stream().map(ColumnDecoding::conversion).collect(toImmutableList()), decodedChannels, types, badData);
    }

    /**
     * The predicate's domains on the columns whose page index trino-parquet reads as the table
     * reads them: decoded without a conversion, of a type whose Parquet statistics it compares.
     * All (no page skipped) when row positions are asked for.
     */
    private static TupleDomain<ColumnDescriptor> pageIndexDomain(
            TupleDomain<Integer> predicate,
            List<FileColumn> columns,
            int[] decodedChannels,
            List<ColumnDecoding> decodings,
            List<Type> fileFields,
            Map<List<String>, ColumnDescriptor> descriptorsByPath)
    {
        if (predicate.isNone() || predicate.isAll() || columns.stream().anyMatch(FileColumn::isRowPosition)) {
            return TupleDomain.all();
        }
        Map<ColumnDescriptor, Domain> domains = new HashMap<>();
        predicate.getDomains().orElseThrow().forEach((position, domain) -> {
            if (position < 0 || position >= columns.size() || decodedChannels[position] < 0) {
                return;
            }
            int decoded = decodedChannels[position];
            ColumnDecoding decoding = decodings.get(decoded);
            if (decoding.conversion().isPresent() || !hasComparablePageStatistics(decoding.readType()) || !domain.getType().equals(decoding.readType())) {
                return;
            }
            String name = fileFields.get(decoded).getName();
            descriptorsByPath.values().stream()
                    .filter(descriptor -> descriptor.getPath().length == 1 && descriptor.getPath()[0].equalsIgnoreCase(name))
                    .findFirst()
                    .ifPresent(descriptor -> domains.put(descriptor, domain));
        });
        return domains.isEmpty() ? TupleDomain.all() : TupleDomain.withColumnDomains(domains);
    }

    private static Optional<ColumnIndexStore> skippingIndexes(RowGroupPageIndexes indexes, Set<ColumnPath> filtered)
    {
        return indexes.ordersAnyOf(filtered) ? Optional.of(indexes) : Optional.empty();
    }

    /**
     * Whether the row group's statistics hold values the predicate rules out on some column; when
     * they show that every row may match, every page may too, and the page index skips nothing.
     * Statistics that are missing or cannot be read may rule out anything.
     */
    private static boolean mayRuleOutRows(BlockMetadata block, TupleDomain<ColumnDescriptor> pageDomain, ParquetDataSourceId source)
    {
        Map<ColumnDescriptor, Domain> domains = pageDomain.getDomains().orElseThrow();
        for (ColumnChunkMetadata chunk : block.columns()) {
            for (Map.Entry<ColumnDescriptor, Domain> entry : domains.entrySet()) {
                if (!Arrays.equals(entry.getKey().getPath(), chunk.getPath().toArray())) {
                    continue;
                }
                Statistics<?> statistics = chunk.getStatistics();
                if (statistics == null || statistics.isEmpty()) {
                    return true;
                }
                try {
                    Domain values = TupleDomainParquetPredicate.getDomain(entry.getKey(), entry.getValue().getType(), block.rowCount(), statistics, source, DateTimeZone.UTC);
                    if (!entry.getValue().contains(values)) {
                        return true;
                    }
                }
                catch (ParquetCorruptionException e) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a filtered column of the row group has more than one data page, as the chunk's
     * encoding stats count them (unknown counts as several): an index of one page skips nothing,
     * and reading it costs a request and more bytes than a small chunk's data.
     */
    private static boolean hasSeveralPages(BlockMetadata block, Set<ColumnPath> filtered)
    {
        for (ColumnChunkMetadata chunk : block.columns()) {
            if (!filtered.contains(chunk.getPath())) {
                continue;
            }
            EncodingStats stats = chunk.getEncodingStats();
            if (stats == null) {
                return true;
            }
            int pages = 0;
            for (Encoding encoding : stats.getDataEncodings()) {
                pages += stats.getNumDataPagesEncodedAs(encoding);
            }
            if (pages > 1) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasComparablePageStatistics(io.trino.spi.type.Type type)
    {
        return type.equals(BIGINT) || type.equals(INTEGER) || type.equals(SMALLINT) || type.equals(TINYINT)
                || type.equals(DATE) || type.equals(DOUBLE) || type.equals(REAL)
                || type instanceof VarcharType
                || (type instanceof DecimalType decimal && decimal.isShort());
    }

    /**
     * The next page, its columns decoded when first used; null after the last row group.
     */
    public SourcePage nextPage()
            throws IOException
    {
        if (reader.isEmpty()) {
            if (!rowGroupsLeft.hasNext()) {
                return null;
            }
            BlockMetadata rowGroup = rowGroupsLeft.next();
            return new MissingColumnsSourcePage(SourcePage.create(toIntExact(rowGroup.rowCount())), decodedChannels, types, rowGroup.fileRowCountOffset());
        }
        SourcePage page;
        try {
            page = reader.get().nextPage();
        }
        catch (RuntimeException e) {
            throw badData.apply(e);
        }
        if (page == null) {
            return null;
        }
        SourcePage decoded = new DecodedSourcePage(page, conversions, badData);
        if (decoded.getChannelCount() == decodedChannels.length) {
            return decoded;
        }
        // the reader's pages never span two row groups: its last page's first row places them all
        return new MissingColumnsSourcePage(decoded, decodedChannels, types, reader.get().lastBatchStartRow());
    }

    @Override
    public void close()
            throws IOException
    {
        if (reader.isPresent()) {
            reader.get().close();
        }
    }
}

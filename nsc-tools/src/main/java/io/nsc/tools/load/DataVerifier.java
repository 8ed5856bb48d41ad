package io.nsc.tools.load;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.parquet.stats.ColumnSketches;
import io.nsc.parquet.types.TrinoTypes;
import io.nsc.protocol.parquet.DecodedTypes;
import io.nsc.protocol.proto.Column;
import io.trino.parquet.Field;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.joda.time.DateTimeZone;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static io.trino.parquet.metadata.PrunedBlockMetadata.createPrunedColumnsMetadata;
import static java.util.Objects.requireNonNull;

/**
 * Decodes every column of every row group of a file with trino-parquet, the decoder nsc's
 * readers use, as the type nsc will register for it. A footer can be perfect while a data page
 * is corrupt or compressed with a codec the reader lacks; only decoding finds that, and it is
 * far cheaper to find here than in the middle of someone's query.
 *
 * <p>Each (row group, column) pair gets its own reader so that a failure names both.
 */
final class DataVerifier
{
    private static final ParquetReaderOptions READER_OPTIONS = ParquetReaderOptions.defaultOptions();

    private DataVerifier() {}

    /**
     * What decoding every value of a file found: the first problem, or the distinct-value
     * sketches of its columns (serialized {@link ColumnSketches}).
     */
    record Verified(Optional<String> problem, byte[] sketches)
    {
        static Verified problem(String problem)
        {
            return new Verified(Optional.of(problem), new byte[0]);
        }
    }

    /** Decodes every value of every column, sketching their distinct values on the way. */
    static Verified verify(Path file, List<Column> columns)
    {
        requireNonNull(file, "file is null");
        requireNonNull(columns, "columns is null");
        ParquetMetadata metadata;
        try (ParquetDataSource source = LocalParquetDataSource.open(file, READER_OPTIONS)) {
            metadata = MetadataReader.readFooter(source, Optional.empty());
        }
        catch (IOException | RuntimeException e) {
            return Verified.problem("file %s: unreadable footer: %s".formatted(file, describe(e)));
        }

        MessageType schema = metadata.getFileMetaData().getSchema();
        MessageColumnIO messageColumnIO = getColumnIO(schema, schema);
        ImmutableList.Builder<io.trino.parquet.Column> fields = ImmutableList.builder();
        ImmutableList.Builder<Type> types = ImmutableList.builder();
        for (Column column : columns) {
            Optional<Type> type = TrinoTypes.fromSignature(DecodedTypes.decodedType(column.getType()));
            if (type.isEmpty()) {
                return Verified.problem("file %s: column %s has type %s, which the loader cannot decode".formatted(file, column.getName(), column.getType()));
            }
            ColumnIO columnIO = lookupColumnByName(messageColumnIO, column.getName());
            Optional<Field> field = columnIO == null ? Optional.empty() : constructField(type.get(), columnIO);
            if (field.isEmpty()) {
                return Verified.problem("file %s: column %s is not readable as %s".formatted(file, column.getName(), column.getType()));
            }
            fields.add(new io.trino.parquet.Column(column.getName(), field.get()));
            types.add(type.get());
        }
        List<io.trino.parquet.Column> readerColumns = fields.build();

        Map<List<String>, ColumnDescriptor> descriptorsByPath = getDescriptors(schema, schema);
        List<BlockMetadata> rowGroups;
        try {
            rowGroups = metadata.getBlocks();
        }
        catch (IOException | RuntimeException e) {
            return Verified.problem("file %s: unreadable row group metadata: %s".formatted(file, describe(e)));
        }
        ColumnSketches sketches = ColumnSketches.create(types.build());
        long fileRowOffset = 0;
        for (int rowGroup = 0; rowGroup < rowGroups.size(); rowGroup++) {
            BlockMetadata block = rowGroups.get(rowGroup);
            for (int column = 0; column < readerColumns.size(); column++) {
                int sketch = column;
                Optional<String> problem = verifyColumnChunk(file, block, rowGroup, fileRowOffset, readerColumns.get(column), descriptorsByPath, metadata, values -> sketches.add(sketch, values));
                if (problem.isPresent()) {
                    return Verified.problem(problem.get());
                }
            }
            fileRowOffset += block.rowCount();
        }
        return new Verified(Optional.empty(), sketches.serialize());
    }

    private static Optional<String> verifyColumnChunk(
            Path file,
            BlockMetadata block,
            int rowGroup,
            long fileRowOffset,
            io.trino.parquet.Column column,
            Map<List<String>, ColumnDescriptor> descriptorsByPath,
            ParquetMetadata metadata,
            Consumer<Block> decoded)
    {
        long rows = 0;
        try (ParquetDataSource source = LocalParquetDataSource.open(file, READER_OPTIONS)) {
            RowGroupInfo rowGroupInfo = new RowGroupInfo(createPrunedColumnsMetadata(block, source.getId(), descriptorsByPath), fileRowOffset, Optional.empty());
            try (ParquetReader reader = new ParquetReader(
                    Optional.ofNullable(metadata.getFileMetaData().getCreatedBy()),
                    List.of(column),
                    false,
                    List.of(rowGroupInfo),
                    source,
                    DateTimeZone.UTC,
                    newSimpleAggregatedMemoryContext(),
                    READER_OPTIONS,
                    DataVerifier::toRuntimeException,
                    Optional.empty(),
                    Optional.empty())) {
                for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                    // getBlock decodes: without it only the page headers would have been looked at
                    Block values = page.getBlock(0);
                    if (values.getPositionCount() != page.getPositionCount()) {
                        return Optional.of(corrupt(file, column, rowGroup, "decoded %s values for %s rows".formatted(values.getPositionCount(), page.getPositionCount())));
                    }
                    decoded.accept(values);
                    rows += page.getPositionCount();
                }
            }
        }
        catch (IOException | RuntimeException e) {
            return Optional.of(corrupt(file, column, rowGroup, describe(e)));
        }
        if (rows != block.rowCount()) {
            return Optional.of(corrupt(file, column, rowGroup, "decoded %s rows, the footer says %s".formatted(rows, block.rowCount())));
        }
        return Optional.empty();
    }

    private static String corrupt(Path file, io.trino.parquet.Column column, int rowGroup, String cause)
    {
        return "file %s: corrupt data in column %s, row group %s: %s".formatted(file, column.name(), rowGroup, cause);
    }

    private static RuntimeException toRuntimeException(Exception exception)
    {
        throwIfUnchecked(exception);
        return new RuntimeException(exception);
    }

    /**
     * The messages along a cause chain, outermost first: trino-parquet wraps decoder errors
     * ("Error reading dictionary page"), and the reason is often only in the cause.
     */
    static String describe(Throwable throwable)
    {
        List<String> messages = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable current = throwable; current != null && seen.add(current); current = current.getCause()) {
            String message = current.getMessage();
            if (message == null || (current.getCause() != null && message.equals(current.getCause().toString()))) {
                // a bare wrapper: its cause says it all
                continue;
            }
            if (messages.stream().noneMatch(previous -> previous.contains(message))) {
                messages.add(message);
            }
        }
        return messages.isEmpty() ? throwable.getClass().getSimpleName() : String.join(": ", messages);
    }
}

package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.HostAddress;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.FixedPageSource;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code "<table>$files"}: one row per Parquet file of the table's current version, with what
 * the coordinator plans from (rows, bytes, row groups) and where its replicas are, in the order
 * readers try them. For operators and for checking what pruning has to work with.
 */
public final class NscFilesTable
        implements SystemTable
{
    public static final String SUFFIX = "$files";

    private static final ArrayType REPLICAS = new ArrayType(VARCHAR);
    private static final List<ColumnMetadata> COLUMNS = ImmutableList.of(
            new ColumnMetadata("file_id", VARCHAR),
            new ColumnMetadata("row_count", BIGINT),
            new ColumnMetadata("size_bytes", BIGINT),
            new ColumnMetadata("row_groups", INTEGER),
            new ColumnMetadata("replicas", REPLICAS));

    private final ConnectorTableMetadata tableMetadata;
    private final NscTableHandle table;
    private final TableFilesCache tableFiles;

    public NscFilesTable(SchemaTableName name, NscTableHandle table, TableFilesCache tableFiles)
    {
        this.tableMetadata = new ConnectorTableMetadata(requireNonNull(name, "name is null"), COLUMNS);
        this.table = requireNonNull(table, "table is null");
        this.tableFiles = requireNonNull(tableFiles, "tableFiles is null");
    }

    /** The data table a {@code $files} name refers to, or empty when the name is no such name. */
    public static Optional<SchemaTableName> dataTable(SchemaTableName name)
    {
        String table = name.getTableName();
        if (!table.endsWith(SUFFIX) || table.length() == SUFFIX.length()) {
            return Optional.empty();
        }
        return Optional.of(new SchemaTableName(name.getSchemaName(), table.substring(0, table.length() - SUFFIX.length())));
    }

    @Override
    public Distribution getDistribution()
    {
        return Distribution.SINGLE_COORDINATOR;
    }

    @Override
    public ConnectorTableMetadata getTableMetadata()
    {
        return tableMetadata;
    }

    @Override
    public ConnectorPageSource pageSource(ConnectorTransactionHandle transaction, ConnectorSession session, TupleDomain<Integer> constraint)
    {
        List<Type> types = COLUMNS.stream().map(ColumnMetadata::getType).toList();
        ImmutableList.Builder<Page> pages = ImmutableList.builder();
        PageBuilder page = new PageBuilder(types);
        try (TableFileBatches batches = tableFiles.fileBatches(table)) {
            while (batches.hasNext()) {
                for (FileEntry file : batches.next()) {
                    if (page.isFull()) {
                        pages.add(page.build());
                        page.reset();
                    }
                    append(page, file);
                }
            }
        }
        if (!page.isEmpty()) {
            pages.add(page.build());
        }
        return new FixedPageSource(pages.build());
    }

    private static void append(PageBuilder page, FileEntry file)
    {
        page.declarePosition();
        VARCHAR.writeSlice(page.getBlockBuilder(0), utf8Slice(file.fileId()));
        BIGINT.writeLong(page.getBlockBuilder(1), file.rowCount());
        BIGINT.writeLong(page.getBlockBuilder(2), file.sizeBytes());
        INTEGER.writeLong(page.getBlockBuilder(3), file.stats().rowGroupCount());
        ((ArrayBlockBuilder) page.getBlockBuilder(4)).buildEntry(elements -> {
            for (HostAddress replica : file.replicas()) {
                VARCHAR.writeSlice(elements, utf8Slice(replica.toString()));
            }
        });
    }
}

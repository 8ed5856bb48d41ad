package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.CatalogSchemaName;
import io.trino.spi.connector.CatalogSchemaTableName;
import io.trino.spi.connector.ConnectorMaterializedViewDefinition;
import io.trino.spi.type.TypeId;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * A materialized view's definition as the metadata service keeps it, as JSON opaque to the
 * service ({@link NscMaterializedViews}); public for Jackson.
 */
public final class MaterializedViewDefinitions
{
    private MaterializedViewDefinitions() {}

    /**
     * The definition as the metadata service keeps it (its comment travels beside it).
     *
     * @param storageTable the table of the view's schema holding its data
     * @param lastRefresh absent until the first REFRESH MATERIALIZED VIEW
     */
    public record StoredView(
            String originalSql,
            Optional<String> catalog,
            Optional<String> schema,
            List<StoredColumn> columns,
            Optional<Long> gracePeriodMillis,
            Optional<String> owner,
            List<PathEntry> path,
            String storageTable,
            Optional<Refresh> lastRefresh)
    {
        public StoredView
        {
            requireNonNull(originalSql, "originalSql is null");
            requireNonNull(catalog, "catalog is null");
            requireNonNull(schema, "schema is null");
            columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
            requireNonNull(gracePeriodMillis, "gracePeriodMillis is null");
            requireNonNull(owner, "owner is null");
            path = ImmutableList.copyOf(requireNonNull(path, "path is null"));
            requireNonNull(storageTable, "storageTable is null");
            requireNonNull(lastRefresh, "lastRefresh is null");
        }

        static StoredView of(ConnectorMaterializedViewDefinition definition, String storageTable)
        {
            return new StoredView(
                    definition.getOriginalSql(),
                    definition.getCatalog(),
                    definition.getSchema(),
                    definition.getColumns().stream().map(column -> new StoredColumn(column.getName(), column.getType().getId(), column.getComment())).collect(toImmutableList()),
                    definition.getGracePeriod().map(Duration::toMillis),
                    definition.getOwner(),
                    definition.getPath().stream().map(entry -> new PathEntry(entry.getCatalogName(), entry.getSchemaName())).collect(toImmutableList()),
                    storageTable,
                    Optional.empty());
        }

        ConnectorMaterializedViewDefinition toDefinition(String catalogName, String schemaName, Optional<String> comment)
        {
            return new ConnectorMaterializedViewDefinition(
                    originalSql,
                    Optional.of(new CatalogSchemaTableName(catalogName, schemaName, storageTable)),
                    catalog,
                    schema,
                    columns.stream().map(column -> new ConnectorMaterializedViewDefinition.Column(column.name(), TypeId.of(column.type()), column.comment())).collect(toImmutableList()),
                    gracePeriodMillis.map(Duration::ofMillis),
                    comment,
                    owner,
                    path.stream().map(entry -> new CatalogSchemaName(entry.catalog(), entry.schema())).collect(toImmutableList()));
        }

        StoredView withColumns(List<StoredColumn> newColumns)
        {
            return new StoredView(originalSql, catalog, schema, newColumns, gracePeriodMillis, owner, path, storageTable, lastRefresh);
        }

        StoredView withLastRefresh(Refresh refresh)
        {
            return new StoredView(originalSql, catalog, schema, columns, gracePeriodMillis, owner, path, storageTable, Optional.of(refresh));
        }
    }

    public record StoredColumn(String name, String type, Optional<String> comment)
    {
        public StoredColumn
        {
            requireNonNull(name, "name is null");
            requireNonNull(type, "type is null");
            requireNonNull(comment, "comment is null");
        }
    }

    public record PathEntry(String catalog, String schema)
    {
        public PathEntry
        {
            requireNonNull(catalog, "catalog is null");
            requireNonNull(schema, "schema is null");
        }
    }

    /**
     * What a refresh read.
     *
     * @param baseTables each nsc table the query read, with the version it read
     * @param otherSources the query read tables of other catalogs too
     */
    public record Refresh(long refreshedMillis, List<BaseTable> baseTables, boolean otherSources)
    {
        public Refresh
        {
            baseTables = ImmutableList.copyOf(requireNonNull(baseTables, "baseTables is null"));
        }
    }

    /** An nsc table by name and id (a table created under the name later is another) and the version read. */
    public record BaseTable(String schema, String table, long tableId, long version)
    {
        public BaseTable
        {
            requireNonNull(schema, "schema is null");
            requireNonNull(table, "table is null");
        }
    }
}

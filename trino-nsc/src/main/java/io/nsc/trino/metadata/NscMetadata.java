package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.client.NscMetadataClient;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_UNSUPPORTED_TYPE;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static java.util.Objects.requireNonNull;

public class NscMetadata
        implements ConnectorMetadata
{
    // Large IN lists are widened to their span beyond this many ranges: the handle stays small and
    // pruning stays correct (a wider predicate only prunes less).
    private static final int DOMAIN_COMPACTION_THRESHOLD = 1000;

    private final NscMetadataClient client;
    private final TypeManager typeManager;
    private final TableFilesCache tableFilesCache;

    @Inject
    public NscMetadata(NscMetadataClient client, TypeManager typeManager, TableFilesCache tableFilesCache)
    {
        this.client = requireNonNull(client, "client is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session)
    {
        return client.listSchemas();
    }

    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName)
    {
        return client.listTables(schemaName);
    }

    @Override
    public ConnectorTableHandle getTableHandle(
            ConnectorSession session,
            SchemaTableName tableName,
            Optional<ConnectorTableVersion> startVersion,
            Optional<ConnectorTableVersion> endVersion)
    {
        if (startVersion.isPresent() || endVersion.isPresent()) {
            throw new TrinoException(NOT_SUPPORTED, "nsc tables do not support versioned queries (FOR VERSION / FOR TIMESTAMP)");
        }
        return client.getTable(tableName)
                .map(this::toTableHandle)
                .orElse(null);
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle table)
    {
        NscTableHandle handle = (NscTableHandle) table;
        return new ConnectorTableMetadata(handle.schemaTableName(), toColumnMetadata(handle.columns()));
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle table)
    {
        NscTableHandle handle = (NscTableHandle) table;
        ImmutableMap.Builder<String, ColumnHandle> columns = ImmutableMap.builder();
        handle.columns().forEach(column -> columns.put(column.name(), column));
        return columns.buildOrThrow();
    }

    @Override
    public ColumnMetadata getColumnMetadata(ConnectorSession session, ConnectorTableHandle table, ColumnHandle column)
    {
        return ((NscColumnHandle) column).toColumnMetadata();
    }

    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        Set<SchemaTableName> names = relationFilter.apply(Set.copyOf(client.listTables(schemaName)));
        return names.stream()
                .map(name -> client.getTable(name)
                        .map(table -> RelationColumnsMetadata.forTable(name, toColumnMetadata(toTableHandle(table).columns()))))
                .flatMap(Optional::stream)
                .iterator();
    }

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle table, Constraint constraint)
    {
        NscTableHandle handle = (NscTableHandle) table;
        TupleDomain<NscColumnHandle> newConstraint = handle.constraint()
                .intersect(constraint.getSummary().transformKeys(NscColumnHandle.class::cast))
                .simplify(DOMAIN_COMPACTION_THRESHOLD);
        if (newConstraint.equals(handle.constraint())) {
            return Optional.empty();
        }
        // Row-group pruning is not row filtering: the whole predicate stays for Trino to evaluate.
        return Optional.of(new ConstraintApplicationResult<>(
                handle.withConstraint(newConstraint),
                constraint.getSummary(),
                constraint.getExpression(),
                false));
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table)
    {
        NscTableHandle handle = (NscTableHandle) table;
        return NscTableStatistics.compute(handle.columns(), tableFilesCache.get(handle));
    }

    private NscTableHandle toTableHandle(TableInfo table)
    {
        ImmutableList.Builder<NscColumnHandle> columns = ImmutableList.builder();
        for (int ordinal = 0; ordinal < table.getColumnsCount(); ordinal++) {
            Column column = table.getColumns(ordinal);
            columns.add(new NscColumnHandle(column.getName(), toType(table, column), ordinal));
        }
        return new NscTableHandle(
                new SchemaTableName(table.getSchemaName(), table.getTableName()),
                table.getTableId(),
                table.getVersion(),
                columns.build(),
                TupleDomain.all());
    }

    private Type toType(TableInfo table, Column column)
    {
        try {
            return typeManager.fromSqlType(column.getType());
        }
        catch (RuntimeException e) {
            throw new TrinoException(NSC_UNSUPPORTED_TYPE, "Column %s of %s.%s has type %s, which this Trino does not know".formatted(
                    column.getName(), table.getSchemaName(), table.getTableName(), column.getType()), e);
        }
    }

    private static List<ColumnMetadata> toColumnMetadata(List<NscColumnHandle> columns)
    {
        return columns.stream().map(NscColumnHandle::toColumnMetadata).collect(toImmutableList());
    }
}

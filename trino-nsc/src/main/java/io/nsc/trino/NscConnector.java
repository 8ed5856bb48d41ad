package io.nsc.trino;

import com.google.common.collect.ImmutableSet;
import com.google.inject.Inject;
import io.airlift.bootstrap.LifeCycleManager;
import io.nsc.trino.delete.NscNodePartitioningProvider;
import io.nsc.trino.metadata.NscMetadata;
import io.nsc.trino.metadata.NscMetadataFactory;
import io.nsc.trino.optimize.OptimizeTableProcedure;
import io.nsc.trino.read.NscPageSourceProvider;
import io.nsc.trino.split.NscSplitManager;
import io.nsc.trino.write.NscPageSinkProvider;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorCapabilities;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.transaction.IsolationLevel.READ_COMMITTED;
import static io.trino.spi.transaction.IsolationLevel.checkConnectorSupports;
import static java.util.Objects.requireNonNull;

public class NscConnector
        implements Connector
{
    private final LifeCycleManager lifeCycleManager;
    private final NscMetadataFactory metadataFactory;
    // the metadata of each open transaction: it holds the table versions the transaction planned
    private final ConcurrentMap<NscTransactionHandle, NscMetadata> transactions = new ConcurrentHashMap<>();
    private final NscSplitManager splitManager;
    private final NscPageSourceProvider pageSourceProvider;
    private final NscPageSinkProvider pageSinkProvider;
    private final NscNodePartitioningProvider nodePartitioningProvider;
    private final NscSessionProperties sessionProperties;
    private final NscTableProperties tableProperties;
    private final Set<SystemTable> systemTables;

    @Inject
    public NscConnector(
            LifeCycleManager lifeCycleManager,
            NscMetadataFactory metadataFactory,
            NscSplitManager splitManager,
            NscPageSourceProvider pageSourceProvider,
            NscPageSinkProvider pageSinkProvider,
            NscNodePartitioningProvider nodePartitioningProvider,
            NscSessionProperties sessionProperties,
            NscTableProperties tableProperties,
            Set<SystemTable> systemTables)
    {
        this.lifeCycleManager = requireNonNull(lifeCycleManager, "lifeCycleManager is null");
        this.metadataFactory = requireNonNull(metadataFactory, "metadataFactory is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.pageSinkProvider = requireNonNull(pageSinkProvider, "pageSinkProvider is null");
        this.nodePartitioningProvider = requireNonNull(nodePartitioningProvider, "nodePartitioningProvider is null");
        this.sessionProperties = requireNonNull(sessionProperties, "sessionProperties is null");
        this.tableProperties = requireNonNull(tableProperties, "tableProperties is null");
        this.systemTables = ImmutableSet.copyOf(requireNonNull(systemTables, "systemTables is null"));
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        checkConnectorSupports(READ_COMMITTED, isolationLevel);
        NscTransactionHandle transaction = NscTransactionHandle.create();
        transactions.put(transaction, metadataFactory.create());
        return transaction;
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transaction)
    {
        NscMetadata metadata = transactions.get((NscTransactionHandle) transaction);
        checkArgument(metadata != null, "no such transaction: %s", transaction);
        return metadata;
    }

    // Writes commit in finishInsert / finishCreateTable already: a transaction's end only forgets
    // the versions it planned.
    @Override
    public void commit(ConnectorTransactionHandle transaction)
    {
        transactions.remove((NscTransactionHandle) transaction);
    }

    @Override
    public void rollback(ConnectorTransactionHandle transaction)
    {
        transactions.remove((NscTransactionHandle) transaction);
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return pageSourceProvider;
    }

    @Override
    public ConnectorPageSinkProvider getPageSinkProvider()
    {
        return pageSinkProvider;
    }

    /** Routes a DELETE's rows to merge sinks by file. */
    @Override
    public ConnectorNodePartitioningProvider getNodePartitioningProvider()
    {
        return nodePartitioningProvider;
    }

    @Override
    public Set<SystemTable> getSystemTables()
    {
        return systemTables;
    }

    @Override
    public Set<TableProcedureMetadata> getTableProcedures()
    {
        return Set.of(OptimizeTableProcedure.metadata());
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties.getSessionProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getAnalyzeProperties()
    {
        return NscAnalyzeProperties.ANALYZE_PROPERTIES;
    }

    @Override
    public List<PropertyMetadata<?>> getTableProperties()
    {
        return tableProperties.getTableProperties();
    }

    /** GRACE PERIOD: Trino weighs it against the last refresh the connector reports as the last fresh time. */
    @Override
    public Set<ConnectorCapabilities> getCapabilities()
    {
        return Set.of(ConnectorCapabilities.MATERIALIZED_VIEW_GRACE_PERIOD);
    }

    /** A materialized view's properties are its storage table's. */
    @Override
    public List<PropertyMetadata<?>> getMaterializedViewProperties()
    {
        return tableProperties.getTableProperties();
    }

    @Override
    public void shutdown()
    {
        lifeCycleManager.stop();
    }
}

package io.nsc.metadata.catalog;

import io.airlift.units.Duration;

import java.time.Clock;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.HOURS;

/** The parts of the catalog over one database, as the service's module wires them. */
public record TestingCatalog(
        CatalogDatabase database,
        ClusterCatalog cluster,
        TableCatalog tables,
        TableHistory history,
        CommitCatalog commits,
        AllocationCatalog allocations,
        NodeCatalog nodes,
        ReplicaCatalog replicas)
{
    public static final Duration DEFAULT_ALLOCATION_TIMEOUT = new Duration(1, HOURS);
    public static final int DEFAULT_REPLICATION = 2;

    public TestingCatalog
    {
        requireNonNull(database, "database is null");
        requireNonNull(cluster, "cluster is null");
        requireNonNull(tables, "tables is null");
        requireNonNull(history, "history is null");
        requireNonNull(commits, "commits is null");
        requireNonNull(allocations, "allocations is null");
        requireNonNull(nodes, "nodes is null");
        requireNonNull(replicas, "replicas is null");
    }

    public static TestingCatalog create(CatalogDatabase database, Clock clock)
    {
        return create(database, clock, DEFAULT_ALLOCATION_TIMEOUT, TableVersionRetention.DEFAULT_RETENTION);
    }

    public static TestingCatalog create(CatalogDatabase database, Clock clock, Duration allocationTimeout, Duration tableVersionRetention)
    {
        AllocationTimeout timeout = new AllocationTimeout(allocationTimeout);
        TableVersionRetention retention = new TableVersionRetention(tableVersionRetention);
        return new TestingCatalog(
                database,
                new ClusterCatalog(database),
                new TableCatalog(database, clock, retention),
                new TableHistory(database, clock, retention),
                new CommitCatalog(database, clock, timeout, retention),
                new AllocationCatalog(database, clock, timeout, retention),
                new NodeCatalog(database),
                new ReplicaCatalog(database, DEFAULT_REPLICATION));
    }
}

package io.nsc.metadata.placement;

import com.google.common.collect.ImmutableList;
import io.nsc.metadata.catalog.Allocation;
import io.nsc.metadata.catalog.CatalogStore;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.membership.StorageNodeState;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.catalog.FileIds.newFileId;
import static java.util.Objects.requireNonNull;

/**
 * Issues file ids and their replica placement, and records them as open allocations so that a
 * later commit can check that every file it names was issued here and not committed before.
 */
public final class FileAllocator
{
    // Bounds the work (and the response size) of one call; writers allocate as they go.
    public static final int MAX_FILES_PER_REQUEST = 10_000;

    private final CatalogStore catalog;
    private final NodeRegistry nodes;
    private final PlacementPolicy policy;
    private final int defaultReplication;
    // the catalog's clock: it judges allocations by the time stamped here
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public FileAllocator(CatalogStore catalog, NodeRegistry nodes, PlacementPolicy policy, int defaultReplication, Clock clock)
    {
        checkArgument(defaultReplication > 0, "defaultReplication must be positive");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.policy = requireNonNull(policy, "policy is null");
        this.defaultReplication = defaultReplication;
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * @param replication replicas per file; 0 for the service's default
     */
    public List<FileAllocationResult> allocate(int fileCount, int replication)
    {
        if (fileCount < 1 || fileCount > MAX_FILES_PER_REQUEST) {
            throw invalidArgument("File count must be between 1 and %s, got %s", MAX_FILES_PER_REQUEST, fileCount);
        }
        if (replication < 0) {
            throw invalidArgument("Replication must not be negative, got %s", replication);
        }
        int effectiveReplication = replication == 0 ? defaultReplication : replication;
        List<List<StorageNodeState>> placements = policy.place(fileCount, effectiveReplication, nodes.nodes());

        long now = clock.millis();
        ImmutableList.Builder<FileAllocationResult> results = ImmutableList.builderWithExpectedSize(fileCount);
        ImmutableList.Builder<Allocation> allocations = ImmutableList.builderWithExpectedSize(fileCount);
        for (List<StorageNodeState> replicas : placements) {
            String fileId = newFileId(random);
            results.add(new FileAllocationResult(fileId, replicas));
            allocations.add(new Allocation(fileId, now, replicas.stream().map(StorageNodeState::nodeId).toList()));
        }
        catalog.addAllocations(allocations.build());
        return results.build();
    }

    public record FileAllocationResult(String fileId, List<StorageNodeState> replicas)
    {
        public FileAllocationResult
        {
            requireNonNull(fileId, "fileId is null");
            replicas = List.copyOf(requireNonNull(replicas, "replicas is null"));
        }
    }
}

package io.nsc.metadata.placement;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.nsc.metadata.catalog.Allocation;
import io.nsc.metadata.catalog.AllocationCatalog;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.membership.StorageNodeState;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.metadata.MetadataErrors.failedPrecondition;
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

    private final AllocationCatalog catalog;
    private final NodeRegistry nodes;
    private final PlacementPolicy policy;
    private final int defaultReplication;
    // the catalog's clock: it judges allocations by the time stamped here
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public FileAllocator(AllocationCatalog catalog, NodeRegistry nodes, PlacementPolicy policy, int defaultReplication, Clock clock)
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

    /**
     * One more node for an open allocation, because the upload to {@code failedNodeIds} failed:
     * a live node outside the allocation with room for the file, recorded in the allocation so
     * that a commit may name it.
     *
     * @param sizeBytes the file's size; 0 when unknown
     * @return the file id and only the new node
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for a failed node outside the
     *         allocation, NOT_FOUND unless the allocation is open, FAILED_PRECONDITION when no
     *         live node is left for the file
     */
    public FileAllocationResult replaceReplica(String fileId, Collection<String> failedNodeIds, long sizeBytes)
    {
        if (sizeBytes < 0) {
            throw invalidArgument("File size must not be negative, got %s", sizeBytes);
        }
        AtomicReference<StorageNodeState> chosen = new AtomicReference<>();
        catalog.addReplica(fileId, allocated -> {
            for (String failed : failedNodeIds) {
                if (!allocated.contains(failed)) {
                    throw invalidArgument("Storage node %s is not allocated to hold file %s (allocated: %s)", failed, fileId, String.join(", ", allocated));
                }
            }
            List<StorageNodeState> known = nodes.nodes();
            StorageNodeState node = policy.placeReplacement(ImmutableSet.copyOf(allocated), sizeBytes, known)
                    .orElseThrow(() -> noNodeLeft(fileId, allocated, sizeBytes, known));
            chosen.set(node);
            return node.nodeId();
        });
        return new FileAllocationResult(fileId, List.of(chosen.get()));
    }

    private static RuntimeException noNodeLeft(String fileId, List<String> allocated, long sizeBytes, List<StorageNodeState> known)
    {
        List<String> others = known.stream()
                .filter(StorageNodeState::alive)
                .map(StorageNodeState::nodeId)
                .filter(nodeId -> !allocated.contains(nodeId))
                .toList();
        String why = others.isEmpty()
                ? "every live storage node is already allocated to hold it"
                : "the other live storage nodes (%s) last reported less than %s bytes free".formatted(String.join(", ", others), sizeBytes);
        return failedPrecondition("No storage node is left for another replica of file %s (allocated: %s): %s", fileId, String.join(", ", allocated), why);
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

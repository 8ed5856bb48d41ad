package io.nsc.trino.client;

import com.google.common.base.Suppliers;
import com.google.inject.Inject;
import io.nsc.protocol.proto.StorageNode;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Whether the storage nodes compete with this Trino process for CPU time: one of them runs on
 * this machine with CPUs this process may use too (a one-machine demo, containers of one host).
 * Then work moved to a storage node is taken from Trino, and only saved bytes can pay for it;
 * storage nodes on machines of their own (the deployment nsc is for) add CPUs instead.
 */
public class StorageCpuSharing
{
    private final NscMetadataClient metadata;
    private final StorageNodeLoad loads;
    // membership changes rarely; a planner asks on every aggregation it considers
    private final Supplier<Boolean> shared;

    @Inject
    public StorageCpuSharing(NscMetadataClient metadata, StorageNodeLoad loads)
    {
        this.metadata = requireNonNull(metadata, "metadata is null");
        this.loads = requireNonNull(loads, "loads is null");
        this.shared = Suppliers.memoizeWithExpiration(this::anyNodeShares, 30, TimeUnit.SECONDS);
    }

    /** True when any live storage node shares this process's CPUs, or when it cannot be told. */
    public boolean storageSharesCpus()
    {
        return shared.get();
    }

    private boolean anyNodeShares()
    {
        List<StorageNode> nodes;
        try {
            nodes = metadata.listNodes();
        }
        catch (RuntimeException e) {
            return true;
        }
        return nodes.stream()
                .filter(StorageNode::getAlive)
                .anyMatch(node -> loads.get(node.getAddress()).sharesCpus());
    }
}

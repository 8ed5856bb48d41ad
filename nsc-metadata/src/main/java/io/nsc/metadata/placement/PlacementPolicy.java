package io.nsc.metadata.placement;

import com.google.common.collect.ImmutableList;
import io.nsc.metadata.membership.StorageNodeState;

import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntToDoubleFunction;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.unavailable;

/**
 * Chooses the storage nodes for new files' replicas: distinct live nodes per file, spread over
 * the cluster in proportion to each node's free space.
 *
 * <p>The choice is a smooth weighted round robin over whole files. Every node carries a credit;
 * for each file, every node earns {@code replication × weight}, the {@code replication} nodes
 * with the most credit hold the file, and each of them pays the total weight. Over many files a
 * node holds replicas in proportion to its weight, and successive files interleave over the
 * nodes (plain rotation for equal weights) rather than piling onto the emptiest one.
 *
 * <p>A node cannot hold more than one replica of a file, so no node can take more than
 * {@code 1/replication} of all replicas; weights above that share are capped ("water-filling"),
 * which is also what keeps every credit bounded.
 *
 * <p>Readers try a file's replicas in order, so the first replica takes the file's reads. A
 * second, unweighted round robin over the chosen nodes decides who goes first, so every node is
 * first for its fair part of the files it holds, not just the nodes that sort first.
 *
 * <p>Credits live across requests, so many writers asking for one file each still spread. They
 * are reset whenever the set of live nodes changes, which needs no bookkeeping for departed nodes.
 */
public final class PlacementPolicy
{
    // Free space in MiB: the precision that matters, and small numbers for the credits.
    private static final int WEIGHT_SHIFT = 20;

    private final Map<String, Credit> credits = new HashMap<>();

    /**
     * @param nodes every known node; only the alive ones that are not draining are used
     * @return for each of {@code fileCount} files, {@code replication} distinct nodes in the
     *         order readers should try them
     */
    public synchronized List<List<StorageNodeState>> place(int fileCount, int replication, Collection<StorageNodeState> nodes)
    {
        checkArgument(fileCount >= 0, "fileCount is negative");
        checkArgument(replication > 0, "replication must be positive");
        List<StorageNodeState> live = liveNodes(nodes);
        if (live.isEmpty()) {
            throw unavailable("No storage node is live");
        }
        if (replication > live.size()) {
            throw failedPrecondition("Replication %s requested but only %s", replication, live.size() == 1 ? "1 storage node is live" : live.size() + " storage nodes are live");
        }
        resetCreditsIfMembershipChanged(live);

        double[] weights = cappedWeights(live, replication);
        double totalWeight = Arrays.stream(weights).sum();
        List<Credit> nodeCredits = live.stream().map(node -> credits.get(node.nodeId())).toList();
        ImmutableList.Builder<List<StorageNodeState>> placements = ImmutableList.builderWithExpectedSize(fileCount);
        for (int file = 0; file < fileCount; file++) {
            placements.add(placeFile(live, nodeCredits, weights, totalWeight, replication));
        }
        return placements.build();
    }

    /**
     * A node for one more replica of a file whose upload failed on a node: a live node outside
     * {@code excluded} (the nodes already allocated the file) whose last reported free space holds
     * the file. Chosen with the same credits as {@link #place}: every candidate earns its weight,
     * the one with the most credit takes the replica and pays the candidates' total, so
     * replacements spread by free space too and leave the credits balanced.
     *
     * @param sizeBytes the file's size; 0 when unknown
     * @return empty when no live node qualifies
     */
    public synchronized Optional<StorageNodeState> placeReplacement(Set<String> excluded, long sizeBytes, Collection<StorageNodeState> nodes)
    {
        checkArgument(sizeBytes >= 0, "sizeBytes is negative");
        List<StorageNodeState> live = liveNodes(nodes);
        List<StorageNodeState> candidates = live.stream()
                .filter(node -> !excluded.contains(node.nodeId()) && node.freeBytes() >= sizeBytes)
                .collect(toImmutableList());
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        resetCreditsIfMembershipChanged(live);
        double totalWeight = 0;
        for (StorageNodeState candidate : candidates) {
            credits.get(candidate.nodeId()).placement += weight(candidate);
            totalWeight += weight(candidate);
        }
        StorageNodeState chosen = candidates.get(rankBy(candidates.size(), i -> credits.get(candidates.get(i).nodeId()).placement).getFirst());
        credits.get(chosen.nodeId()).placement -= totalWeight;
        return Optional.of(chosen);
    }

    private static List<StorageNodeState> liveNodes(Collection<StorageNodeState> nodes)
    {
        return nodes.stream()
                .filter(StorageNodeState::acceptsReplicas)
                .sorted(Comparator.comparing(StorageNodeState::nodeId))
                .collect(toImmutableList());
    }

    private static List<StorageNodeState> placeFile(List<StorageNodeState> live, List<Credit> nodeCredits, double[] weights, double totalWeight, int replication)
    {
        for (int i = 0; i < live.size(); i++) {
            nodeCredits.get(i).placement += replication * weights[i];
        }
        // ties go to the first in id order, which keeps the policy deterministic
        List<Integer> holders = rankBy(live.size(), i -> nodeCredits.get(i).placement).subList(0, replication);
        for (int holder : holders) {
            nodeCredits.get(holder).placement -= totalWeight;
            nodeCredits.get(holder).primary += 1;
        }
        List<Integer> order = holders.stream()
                .sorted(Comparator.comparingDouble((Integer i) -> -nodeCredits.get(i).primary).thenComparing(i -> i))
                .toList();
        nodeCredits.get(order.getFirst()).primary -= replication;
        return order.stream().map(live::get).collect(toImmutableList());
    }

    private static List<Integer> rankBy(int count, IntToDoubleFunction credit)
    {
        Integer[] indexes = new Integer[count];
        Arrays.setAll(indexes, i -> i);
        Arrays.sort(indexes, Comparator.comparingDouble((Integer i) -> -credit.applyAsDouble(i)).thenComparing(i -> i));
        return Arrays.asList(indexes);
    }

    /**
     * Free space as weights, with no weight above {@code 1/replication} of the total: the
     * largest weights are lowered to a common level {@code L} such that {@code L} is exactly
     * {@code 1/replication} of the new total.
     */
    static double[] cappedWeights(List<StorageNodeState> live, int replication)
    {
        int count = live.size();
        double[] weights = new double[count];
        if (replication == count) {
            // every node holds every file; the weights no longer matter
            Arrays.fill(weights, 1);
            return weights;
        }
        for (int i = 0; i < count; i++) {
            weights[i] = weight(live.get(i));
        }
        List<Integer> descending = rankBy(count, i -> weights[i]);
        double rest = Arrays.stream(weights).sum();
        for (int capped = 0; capped < replication; capped++) {
            double level = rest / (replication - capped);
            if (weights[descending.get(capped)] <= level) {
                for (int i = 0; i < capped; i++) {
                    weights[descending.get(i)] = level;
                }
                return weights;
            }
            rest -= weights[descending.get(capped)];
        }
        // unreachable while replication < count: the loop ends at the latest when all nodes but
        // replication - 1 remain, and one of those is at most the level
        throw new IllegalStateException("Cannot cap weights");
    }

    private void resetCreditsIfMembershipChanged(List<StorageNodeState> live)
    {
        Set<String> liveIds = live.stream().map(StorageNodeState::nodeId).collect(toImmutableSet());
        if (!credits.keySet().equals(liveIds)) {
            credits.clear();
            liveIds.forEach(nodeId -> credits.put(nodeId, new Credit()));
        }
    }

    // Every live node keeps a minimal weight: nodes that report no free space (or have not said
    // yet) are still used when replication needs them, just last.
    private static double weight(StorageNodeState node)
    {
        return Math.max(1, node.freeBytes() >> WEIGHT_SHIFT);
    }

    private static final class Credit
    {
        // earned by weight, paid when holding a replica
        double placement;
        // earned by holding a replica, paid when being the first replica
        double primary;
    }
}

package io.nsc.metadata.placement;

import io.nsc.metadata.membership.StorageNodeState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.UNAVAILABLE;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

final class TestPlacementPolicy
{
    private static final long GIB = 1L << 30;

    @Test
    void testReplicasOfOneFileAreDistinct()
    {
        List<StorageNodeState> nodes = nodes(5, 100 * GIB);
        List<List<StorageNodeState>> placements = new PlacementPolicy().place(200, 3, nodes);

        assertThat(placements).hasSize(200);
        for (List<StorageNodeState> replicas : placements) {
            assertThat(replicas).hasSize(3);
            assertThat(replicas.stream().map(StorageNodeState::nodeId).distinct()).hasSize(3);
        }
    }

    @Test
    void testReplicationUpToEveryLiveNode()
    {
        List<StorageNodeState> nodes = nodes(3, GIB);
        for (List<StorageNodeState> replicas : new PlacementPolicy().place(10, 3, nodes)) {
            assertThat(replicas).extracting(StorageNodeState::nodeId).containsExactlyInAnyOrder("node-0", "node-1", "node-2");
        }
    }

    @Test
    void testReplicationAboveLiveNodesFails()
    {
        PlacementPolicy policy = new PlacementPolicy();
        List<StorageNodeState> nodes = List.of(node("a", GIB, true), node("b", GIB, true), node("c", GIB, false));
        assertStatus(() -> policy.place(1, 3, nodes), FAILED_PRECONDITION, "Replication 3 requested but only 2 storage nodes are live");
        assertStatus(() -> policy.place(1, 2, List.of(node("a", GIB, true))), FAILED_PRECONDITION, "Replication 2 requested but only 1 storage node is live");
        assertStatus(() -> policy.place(1, 1, List.of()), UNAVAILABLE, "No storage node is live");
        assertStatus(() -> policy.place(1, 1, List.of(node("a", GIB, false))), UNAVAILABLE, "No storage node is live");
    }

    @Test
    void testSuccessiveFilesRotateOverNodes()
    {
        List<List<StorageNodeState>> placements = new PlacementPolicy().place(6, 1, nodes(3, 10 * GIB));
        List<String> primaries = placements.stream().map(replicas -> replicas.getFirst().nodeId()).toList();

        assertThat(primaries.subList(0, 3)).containsExactlyInAnyOrder("node-0", "node-1", "node-2");
        assertThat(primaries.subList(3, 6)).isEqualTo(primaries.subList(0, 3));
    }

    @Test
    void testEqualNodesShareManyFilesEvenly()
    {
        Map<String, Integer> counts = replicaCounts(new PlacementPolicy().place(1000, 2, nodes(4, 50 * GIB)));

        assertThat(counts).hasSize(4);
        // 2000 replicas over 4 equal nodes
        counts.values().forEach(count -> assertThat(count).isCloseTo(500, within(10)));
    }

    @Test
    void testSpreadAcrossRequests()
    {
        PlacementPolicy policy = new PlacementPolicy();
        List<StorageNodeState> nodes = nodes(4, 50 * GIB);
        List<List<StorageNodeState>> placements = new ArrayList<>();
        // many writers asking for one file each must not all land on the same node
        IntStream.range(0, 100).forEach(_ -> placements.addAll(policy.place(1, 1, nodes)));

        replicaCounts(placements).values().forEach(count -> assertThat(count).isEqualTo(25));
    }

    @Test
    void testWeightedByFreeSpace()
    {
        List<StorageNodeState> nodes = List.of(node("small", GIB, true), node("medium", 2 * GIB, true), node("large", 4 * GIB, true));
        Map<String, Integer> counts = replicaCounts(new PlacementPolicy().place(7000, 1, nodes));

        assertThat(counts.get("small")).isCloseTo(1000, within(20));
        assertThat(counts.get("medium")).isCloseTo(2000, within(20));
        assertThat(counts.get("large")).isCloseTo(4000, within(20));
    }

    @Test
    void testWeightedWithReplication()
    {
        List<StorageNodeState> nodes = List.of(node("a", GIB, true), node("b", GIB, true), node("c", GIB, true), node("big", 8 * GIB, true));
        Map<String, Integer> counts = replicaCounts(new PlacementPolicy().place(1000, 2, nodes));

        // the big node cannot hold two replicas of a file: it holds every file, the rest share the other replica evenly
        assertThat(counts.get("big")).isEqualTo(1000);
        assertThat(counts.get("a")).isCloseTo(333, within(2));
        assertThat(counts.get("b")).isCloseTo(333, within(2));
        assertThat(counts.get("c")).isCloseTo(333, within(2));

        Map<String, Integer> unevenCounts = replicaCounts(new PlacementPolicy().place(1000, 2, List.of(node("a", GIB, true), node("b", 2 * GIB, true), node("c", 3 * GIB, true))));
        // weights 1:2:3 over 2000 replicas
        assertThat(unevenCounts.get("a")).isCloseTo(333, within(2));
        assertThat(unevenCounts.get("b")).isCloseTo(667, within(2));
        assertThat(unevenCounts.get("c")).isCloseTo(1000, within(2));
    }

    @Test
    void testFirstReplicaIsSpread()
    {
        // readers go to the first replica: with equal nodes, each must be first equally often
        Map<String, Integer> firsts = new HashMap<>();
        new PlacementPolicy().place(1000, 3, nodes(5, 10 * GIB))
                .forEach(replicas -> firsts.merge(replicas.getFirst().nodeId(), 1, Integer::sum));

        assertThat(firsts).hasSize(5);
        firsts.values().forEach(count -> assertThat(count).isCloseTo(200, within(2)));
    }

    @Test
    void testNodesWithoutFreeSpaceAreUsedOnlyWhenNeeded()
    {
        List<StorageNodeState> nodes = List.of(node("full", 0, true), node("empty", 100 * GIB, true));
        Map<String, Integer> single = replicaCounts(new PlacementPolicy().place(100, 1, nodes));
        assertThat(single.getOrDefault("full", 0)).isLessThanOrEqualTo(1);

        Map<String, Integer> both = replicaCounts(new PlacementPolicy().place(100, 2, nodes));
        assertThat(both).containsEntry("full", 100).containsEntry("empty", 100);
    }

    @Test
    void testDeadNodesAreExcluded()
    {
        List<StorageNodeState> nodes = List.of(
                node("live-1", GIB, true),
                node("dead-1", 1000 * GIB, false),
                node("live-2", GIB, true),
                node("dead-2", 1000 * GIB, false));
        Map<String, Integer> counts = replicaCounts(new PlacementPolicy().place(100, 2, nodes));

        assertThat(counts).containsOnlyKeys("live-1", "live-2");
    }

    @Test
    void testMembershipChangeBetweenRequests()
    {
        PlacementPolicy policy = new PlacementPolicy();
        policy.place(5, 1, nodes(2, GIB));
        // a node joins: it gets its share right away
        Map<String, Integer> counts = replicaCounts(policy.place(30, 1, nodes(3, GIB)));
        assertThat(counts).containsOnlyKeys("node-0", "node-1", "node-2");
        counts.values().forEach(count -> assertThat(count).isEqualTo(10));
    }

    @Test
    void testReplacementAvoidsAllocatedDeadAndFullNodes()
    {
        PlacementPolicy policy = new PlacementPolicy();
        List<StorageNodeState> nodes = List.of(
                node("allocated", 100 * GIB, true),
                node("failed", 100 * GIB, true),
                node("dead", 100 * GIB, false),
                node("small", GIB, true),
                node("roomy", 10 * GIB, true));
        Set<String> allocated = Set.of("allocated", "failed");
        // a 2 GiB file fits only on roomy
        for (int i = 0; i < 10; i++) {
            assertThat(policy.placeReplacement(allocated, 2 * GIB, nodes)).map(StorageNodeState::nodeId).hasValue("roomy");
        }
        // of unknown size, both live nodes outside the allocation take replacements, by free space
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 110; i++) {
            counts.merge(policy.placeReplacement(allocated, 0, nodes).orElseThrow().nodeId(), 1, Integer::sum);
        }
        assertThat(counts).containsOnlyKeys("small", "roomy");
        assertThat(counts.get("roomy")).isCloseTo(100, within(1));

        assertThat(policy.placeReplacement(Set.of("allocated", "failed", "small", "roomy"), 0, nodes)).isEmpty();
        assertThat(policy.placeReplacement(allocated, 11 * GIB, nodes)).isEmpty();
        assertThat(policy.placeReplacement(Set.of(), 0, List.of(node("dead", GIB, false)))).isEmpty();
    }

    @Test
    void testReplacementsKeepPlacementsEven()
    {
        PlacementPolicy policy = new PlacementPolicy();
        List<StorageNodeState> nodes = nodes(4, 10 * GIB);
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            List<StorageNodeState> replicas = policy.place(1, 2, nodes).getFirst();
            replicas.forEach(node -> counts.merge(node.nodeId(), 1, Integer::sum));
            // every file loses its first replica to a failure and gets a replacement
            Set<String> allocated = replicas.stream().map(StorageNodeState::nodeId).collect(toImmutableSet());
            StorageNodeState replacement = policy.placeReplacement(allocated, GIB, nodes).orElseThrow();
            assertThat(allocated).doesNotContain(replacement.nodeId());
            counts.merge(replacement.nodeId(), 1, Integer::sum);
        }
        // 300 replicas over 4 equal nodes: the credits keep the shares even
        assertThat(counts).containsOnlyKeys("node-0", "node-1", "node-2", "node-3");
        counts.values().forEach(count -> assertThat(count).isCloseTo(75, within(3)));
    }

    private static Map<String, Integer> replicaCounts(List<List<StorageNodeState>> placements)
    {
        Map<String, Integer> counts = new HashMap<>();
        placements.forEach(replicas -> replicas.forEach(node -> counts.merge(node.nodeId(), 1, Integer::sum)));
        return counts;
    }

    private static List<StorageNodeState> nodes(int count, long freeBytes)
    {
        return IntStream.range(0, count)
                .mapToObj(i -> node("node-" + i, freeBytes, true))
                .toList();
    }

    private static StorageNodeState node(String nodeId, long freeBytes, boolean alive)
    {
        return new StorageNodeState(nodeId, nodeId + ":7080", 2 * freeBytes, freeBytes, 0, 0, 0, alive);
    }
}

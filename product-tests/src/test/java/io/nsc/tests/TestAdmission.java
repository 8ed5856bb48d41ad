package io.nsc.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Trino nsc ships admits queries the way a shared server must: a bounded number run at once
 * in a resource group, each user's queue of its own, the rest wait; and the memory pool leaves
 * Trino's headroom beside it, so untracked allocations of many queries cannot exhaust the heap.
 * (benchmarks/load runs 32 and 64 heavy queries at once against this configuration.)
 */
@ExtendWith(NscClusterExtension.class)
final class TestAdmission
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void testQueriesRunInTheirUsersGroupUnderABoundedGlobalOne(NscCluster cluster)
            throws SQLException, IOException
    {
        try (Connection connection = cluster.connect("nsc")) {
            Jdbc.QueryResult query = Jdbc.query(connection, "SELECT count(*) FROM nsc.tpch.region");
            assertThat(query.rows()).containsExactly(List.of(5L));
            String user = connection.getMetaData().getUserName();
            assertThat(Jdbc.rows(connection, "SELECT array_join(resource_group_id, '.') FROM system.runtime.queries WHERE query_id = '%s'"
                    .formatted(query.queryId())))
                    .containsExactly(List.of("global." + user));
        }

        JsonNode global = JSON.readTree(cluster.trinoRest("/v1/resourceGroupState/global"));
        assertThat(global.get("hardConcurrencyLimit").asInt()).isEqualTo(4);
        assertThat(global.get("maxQueuedQueries").asInt()).isEqualTo(1000);
        assertThat(global.get("schedulingPolicy").asText()).isEqualTo("FAIR");
    }

    @Test
    void testTheMemoryPoolLeavesTrinosHeadroom(NscCluster cluster)
            throws IOException
    {
        JsonNode status = JSON.readTree(cluster.trinoRest("/v1/status"));
        long heap = status.get("heapAvailable").asLong();
        long pool = status.get("memoryInfo").get("pool").get("maxBytes").asLong();
        // the pool is the heap less 30% headroom for what Trino cannot account for
        assertThat((double) pool / heap).isBetween(0.69, 0.71);
    }
}

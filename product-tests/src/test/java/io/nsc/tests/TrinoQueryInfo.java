package io.nsc.tests;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.nsc.tests.cluster.NscCluster;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * What Trino itself reports about a finished query ({@code GET /v1/query/ID}): for each scan of a
 * connector's table, how many splits the connector's split source made and how many the tasks of
 * each node ran; which nodes ran an operator; how many dynamic filters the coordinator completed.
 */
final class TrinoQueryInfo
{
    // the operators that pull a scan's splits: one driver per split
    private static final Set<String> SOURCE_OPERATORS = Set.of("TableScanOperator", "ScanFilterAndProjectOperator");

    private final JsonNode root;

    private TrinoQueryInfo(JsonNode root)
    {
        this.root = requireNonNull(root, "root is null");
    }

    /**
     * A scan of one table in one stage.
     *
     * @param splitsPlanned the splits the connector's split source planned (its {@code splits}
     * metric; a pushed-down aggregation runs them as the parts of one split)
     * @param splitsByNode the splits each node's tasks ran, for the nodes that ran any
     * @param rowsRead the rows the scan's operators received from the connector on all nodes
     */
    record Scan(String table, long splitsPlanned, Map<String, Long> splitsByNode, long rowsRead)
    {
        Scan
        {
            requireNonNull(table, "table is null");
            splitsByNode = ImmutableMap.copyOf(splitsByNode);
        }

        long splitsRun()
        {
            return splitsByNode.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * The query's final info: Trino completes a query's statistics shortly after the client
     * has read its last rows.
     */
    static TrinoQueryInfo fetch(NscCluster cluster, String queryId)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            JsonNode root = parse(cluster.trinoRest("/v1/query/" + queryId));
            if (root.path("finalQueryInfo").asBoolean()) {
                return new TrinoQueryInfo(root);
            }
            checkState(System.nanoTime() < deadline, "query %s has no final query info within 30 s (state %s)", queryId, root.path("state").asText());
            Thread.sleep(200);
        }
    }

    /** The scans of the tables of {@code connector} (the connector's name, such as {@code nsc}), one per stage. */
    List<Scan> scans(String connector)
    {
        ImmutableList.Builder<Scan> scans = ImmutableList.builder();
        for (JsonNode stage : stages()) {
            JsonNode tables = stage.path("tables");
            if (tables.isEmpty()) {
                continue;
            }
            // the source operators of a stage do not say which table they read
            checkState(tables.size() == 1, "stage %s reads %s tables, whose splits cannot be told apart", stage.path("stageId").asText(), tables.size());
            String planNodeId = tables.fieldNames().next();
            JsonNode table = tables.get(planNodeId);
            if (!table.path("connectorName").asText().equals(connector)) {
                continue;
            }
            JsonNode splits = stage.path("stageStats").path("splitSourceMetrics").path(planNodeId).path("splits").path("total");
            checkState(splits.isNumber(), "the split source of %s in stage %s reports no splits metric", table.path("tableName").asText(), stage.path("stageId").asText());
            Map<String, Long> splitsByNode = new TreeMap<>();
            long rows = 0;
            for (JsonNode task : stage.path("tasks")) {
                String node = task.path("taskStatus").path("nodeId").asText();
                for (JsonNode operator : operators(task)) {
                    if (SOURCE_OPERATORS.contains(operator.path("operatorType").asText()) && operator.path("totalDrivers").asLong() > 0) {
                        splitsByNode.merge(node, operator.path("totalDrivers").asLong(), Long::sum);
                        rows += operator.path("inputPositions").asLong();
                    }
                }
            }
            scans.add(new Scan(table.path("tableName").asText(), splits.asLong(), splitsByNode, rows));
        }
        return scans.build();
    }

    /** The scan of one table; fails unless the query read it in exactly one stage. */
    Scan scan(String connector, String table)
    {
        List<Scan> matching = scans(connector).stream()
                .filter(scan -> scan.table().equals(table))
                .toList();
        checkState(matching.size() == 1, "query %s scans %s in %s stages", root.path("queryId").asText(), table, matching.size());
        return matching.getFirst();
    }

    /** The nodes whose tasks ran {@code operatorType} (such as {@code DynamicFilterSourceOperator}). */
    Set<String> nodesRunning(String operatorType)
    {
        ImmutableSet.Builder<String> nodes = ImmutableSet.builder();
        for (JsonNode stage : stages()) {
            for (JsonNode task : stage.path("tasks")) {
                for (JsonNode operator : operators(task)) {
                    if (operator.path("operatorType").asText().equals(operatorType) && operator.path("totalDrivers").asLong() > 0) {
                        nodes.add(task.path("taskStatus").path("nodeId").asText());
                    }
                }
            }
        }
        return nodes.build();
    }

    /** The dynamic filters whose domain the coordinator completed, from every task that built one. */
    long dynamicFiltersCompleted()
    {
        return root.path("queryStats").path("dynamicFiltersStats").path("dynamicFiltersCompleted").asLong();
    }

    private List<JsonNode> stages()
    {
        ImmutableList.Builder<JsonNode> stages = ImmutableList.builder();
        addStages(root.path("outputStage"), stages);
        return stages.build();
    }

    private static void addStages(JsonNode stage, ImmutableList.Builder<JsonNode> stages)
    {
        if (stage.isMissingNode() || stage.isNull()) {
            return;
        }
        stages.add(stage);
        for (JsonNode subStage : stage.path("subStages")) {
            addStages(subStage, stages);
        }
    }

    private static List<JsonNode> operators(JsonNode task)
    {
        ImmutableList.Builder<JsonNode> operators = ImmutableList.builder();
        for (JsonNode pipeline : task.path("stats").path("pipelines")) {
            pipeline.path("operatorSummaries").forEach(operators::add);
        }
        return operators.build();
    }

    private static JsonNode parse(String json)
    {
        try {
            return JsonMapper.builder().build().readTree(json);
        }
        catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.nsc.trino;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;

import java.util.List;

import static io.trino.plugin.base.session.PropertyMetadataUtil.dataSizeProperty;
import static io.trino.plugin.base.session.PropertyMetadataUtil.durationProperty;
import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static io.trino.spi.session.PropertyMetadata.booleanProperty;
import static io.trino.spi.session.PropertyMetadata.enumProperty;
import static io.trino.spi.session.PropertyMetadata.longProperty;

public final class NscSessionProperties
{
    public static final String STATS_PRUNING_ENABLED = "stats_pruning_enabled";
    public static final String PUSHDOWN = "pushdown";
    public static final String ADAPTIVE_SCAN_MODES = "adaptive_scan_modes";
    public static final String DYNAMIC_FILTERING_WAIT_TIMEOUT = "dynamic_filtering_wait_timeout";
    public static final String DYNAMIC_FILTERING_MIN_PROBE_SIZE = "dynamic_filtering_min_probe_size";
    public static final String DYNAMIC_FILTERING_PROBE_WAIT_TIMEOUT = "dynamic_filtering_probe_wait_timeout";
    public static final String AGGREGATION_PUSHDOWN_MAX_GROUPS = "aggregation_pushdown_max_groups";
    public static final String RAW_READ_MAX_MERGE_DISTANCE = "raw_read_max_merge_distance";

    // as NscConfig allows: a range merged across more than this is a read the query did not ask for
    private static final DataSize MAX_RAW_READ_MERGE_DISTANCE = DataSize.of(64, DataSize.Unit.MEGABYTE);

    private final List<PropertyMetadata<?>> sessionProperties;

    @Inject
    public NscSessionProperties(NscConfig config)
    {
        sessionProperties = ImmutableList.of(
                booleanProperty(
                        STATS_PRUNING_ENABLED,
                        "Skip row groups whose compact stats prove that no row can match the query's predicate",
                        config.isStatsPruningEnabled(),
                        false),
                booleanProperty(
                        ADAPTIVE_SCAN_MODES,
                        "With pushdown AUTO: workers measure both modes on a scan's first splits and read the rest the cheaper way",
                        config.isAdaptiveScanModes(),
                        false),
                enumProperty(
                        PUSHDOWN,
                        "AUTO: per split, raw byte ranges or a storage-side scan; FILTER: storage nodes filter, project and limit; RAW: workers decode raw byte ranges; NONE: no pruning, no pushdown",
                        PushdownMode.class,
                        config.getPushdown(),
                        false),
                dataSizeProperty(
                        RAW_READ_MAX_MERGE_DISTANCE,
                        "A raw read fetches byte ranges at most this far apart as one request",
                        config.getRawReadMaxMergeDistance(),
                        value -> {
                            if (value.toBytes() > MAX_RAW_READ_MERGE_DISTANCE.toBytes()) {
                                throw new TrinoException(INVALID_SESSION_PROPERTY, RAW_READ_MAX_MERGE_DISTANCE + " must be at most " + MAX_RAW_READ_MERGE_DISTANCE);
                            }
                        },
                        false),
                durationProperty(
                        DYNAMIC_FILTERING_WAIT_TIMEOUT,
                        "How long split planning waits for a join's dynamic filter, to prune row groups with it, when the filter is on a Bloom filter column or on one whose row groups hold narrow ranges (sorted, or written in its order); elsewhere it prunes nothing and planning does not wait",
                        config.getDynamicFilteringWaitTimeout(),
                        false),
                dataSizeProperty(
                        DYNAMIC_FILTERING_MIN_PROBE_SIZE,
                        "A join's probe side whose columns hold less than this in the table (compressed) is read as soon as its splits reach a worker, without waiting for the join's dynamic filter",
                        config.getDynamicFilteringMinProbeSize(),
                        false),
                durationProperty(
                        DYNAMIC_FILTERING_PROBE_WAIT_TIMEOUT,
                        "How long a split of a join's probe side that opens before any of the join's dynamic filter has reached its worker waits for it there before it chooses its mode",
                        config.getDynamicFilteringProbeWaitTimeout(),
                        false),
                longProperty(
                        AGGREGATION_PUSHDOWN_MAX_GROUPS,
                        "Aggregations are computed by storage nodes only when the distinct counts bound their groups to this many (0: never)",
                        config.getAggregationPushdownMaxGroups(),
                        value -> {
                            if (value < 0) {
                                throw new TrinoException(INVALID_SESSION_PROPERTY, AGGREGATION_PUSHDOWN_MAX_GROUPS + " must not be negative");
                            }
                        },
                        false));
    }

    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties;
    }

    public static boolean isStatsPruningEnabled(ConnectorSession session)
    {
        return session.getProperty(STATS_PRUNING_ENABLED, Boolean.class);
    }

    public static boolean isAdaptiveScanModes(ConnectorSession session)
    {
        return session.getProperty(ADAPTIVE_SCAN_MODES, Boolean.class);
    }

    public static PushdownMode getPushdown(ConnectorSession session)
    {
        return session.getProperty(PUSHDOWN, PushdownMode.class);
    }

    public static DataSize getRawReadMaxMergeDistance(ConnectorSession session)
    {
        return session.getProperty(RAW_READ_MAX_MERGE_DISTANCE, DataSize.class);
    }

    public static Duration getDynamicFilteringWaitTimeout(ConnectorSession session)
    {
        return session.getProperty(DYNAMIC_FILTERING_WAIT_TIMEOUT, Duration.class);
    }

    public static DataSize getDynamicFilteringMinProbeSize(ConnectorSession session)
    {
        return session.getProperty(DYNAMIC_FILTERING_MIN_PROBE_SIZE, DataSize.class);
    }

    public static Duration getDynamicFilteringProbeWaitTimeout(ConnectorSession session)
    {
        return session.getProperty(DYNAMIC_FILTERING_PROBE_WAIT_TIMEOUT, Duration.class);
    }

    public static long getAggregationPushdownMaxGroups(ConnectorSession session)
    {
        return session.getProperty(AGGREGATION_PUSHDOWN_MAX_GROUPS, Long.class);
    }
}

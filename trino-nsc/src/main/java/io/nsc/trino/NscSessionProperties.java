package io.nsc.trino;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;

import java.util.List;

import static io.trino.spi.session.PropertyMetadata.booleanProperty;

public final class NscSessionProperties
{
    public static final String STATS_PRUNING_ENABLED = "stats_pruning_enabled";

    private final List<PropertyMetadata<?>> sessionProperties;

    @Inject
    public NscSessionProperties(NscConfig config)
    {
        sessionProperties = ImmutableList.of(
                booleanProperty(
                        STATS_PRUNING_ENABLED,
                        "Skip row groups whose compact stats prove that no row can match the query's predicate",
                        config.isStatsPruningEnabled(),
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
}

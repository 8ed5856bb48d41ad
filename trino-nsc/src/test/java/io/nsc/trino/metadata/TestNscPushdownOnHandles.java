package io.nsc.trino.metadata;

import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.NscConfig;
import io.nsc.trino.NscSessionProperties;
import io.nsc.trino.client.NscMetadataClient;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortItem;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.trino.NscSessionProperties.PUSHDOWN;
import static io.trino.spi.connector.SortOrder.ASC_NULLS_LAST;
import static io.trino.spi.connector.SortOrder.DESC_NULLS_LAST;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The limit and top-N decisions on a table handle alone: the SQL-level behaviour is in
 * {@link io.nsc.trino.TestNscPushdown}. No metadata service runs; these decisions never list files.
 */
@TestInstance(PER_CLASS)
final class TestNscPushdownOnHandles
{
    private static final NscColumnHandle ID = new NscColumnHandle("id", BIGINT, 0);
    private static final NscColumnHandle PRICE = new NscColumnHandle("price", BIGINT, 1);
    private static final Map<String, ColumnHandle> ASSIGNMENTS = Map.of("id", ID, "price", PRICE);
    private static final NscTableHandle TABLE = NscTableHandle.forTable(new SchemaTableName("s", "t"), 1, 1, List.of(ID, PRICE), Map.of());

    private final NscConfig config = new NscConfig().setMetadataAddress("127.0.0.1:1");
    private final NscMetadataClient client = new NscMetadataClient(config, TransportSecurity.insecure());
    private final NscPushdown pushdown = new NscPushdown(new TableFilesCache(client, config));

    @AfterAll
    void close()
    {
        client.close();
    }

    @Test
    void testLimitKeepsTheTightest()
    {
        NscTableHandle limited = limit(session("AUTO"), TABLE, 10).orElseThrow();
        assertThat(limited.limit()).isEqualTo(OptionalLong.of(10));
        assertThat(limit(session("AUTO"), limited, 20)).isEmpty();
        assertThat(limit(session("AUTO"), limited, 10)).isEmpty();
        assertThat(limit(session("AUTO"), limited, 5).orElseThrow().limit()).isEqualTo(OptionalLong.of(5));
        // RAW pushes no predicate, yet each split can still stop early
        assertThat(limit(session("RAW"), TABLE, 10)).isPresent();
    }

    @Test
    void testNoLimitWithoutPushdownOrBelowATopN()
    {
        assertThat(limit(session("NONE"), TABLE, 10)).isEmpty();
        NscTableHandle topN = topN(session("AUTO"), TABLE, 10, List.of(new SortItem("price", DESC_NULLS_LAST))).orElseThrow();
        assertThat(limit(session("AUTO"), topN, 5)).isEmpty();
    }

    @Test
    void testTopN()
    {
        List<SortItem> byPrice = List.of(new SortItem("price", DESC_NULLS_LAST), new SortItem("id", ASC_NULLS_LAST));
        NscTableHandle topN = topN(session("AUTO"), TABLE, 100, byPrice).orElseThrow();
        assertThat(topN.topN()).contains(new NscTopN(100, List.of(new NscTopN.SortItem(PRICE, false, false), new NscTopN.SortItem(ID, true, false))));
        // the same or a looser top-N changes nothing; a tighter one in the same order replaces it
        assertThat(topN(session("AUTO"), topN, 100, byPrice)).isEmpty();
        assertThat(topN(session("AUTO"), topN, 200, byPrice)).isEmpty();
        assertThat(topN(session("AUTO"), topN, 50, byPrice).orElseThrow().topN().orElseThrow().count()).isEqualTo(50);
        // another order over these rows would pick from the wrong ones
        assertThat(topN(session("AUTO"), topN, 50, List.of(new SortItem("id", ASC_NULLS_LAST)))).isEmpty();
    }

    @Test
    void testTopNStaysWithTrino()
    {
        List<SortItem> byPrice = List.of(new SortItem("price", DESC_NULLS_LAST));
        // storage nodes would not see the predicate Trino applies after them
        assertThat(topN(session("RAW"), TABLE, 10, byPrice)).isEmpty();
        assertThat(topN(session("NONE"), TABLE, 10, byPrice)).isEmpty();
        NscTableHandle pruned = TABLE.withConstraint(TupleDomain.withColumnDomains(Map.of(PRICE, Domain.singleValue(BIGINT, 5L))), false);
        assertThat(topN(session("AUTO"), pruned, 10, byPrice)).isEmpty();
        // file order, not sort order: the limit's rows are not the top-N's
        assertThat(topN(session("AUTO"), TABLE.withLimit(10), 10, byPrice)).isEmpty();
        // too many rows to hold on a storage node
        assertThat(topN(session("AUTO"), TABLE, 100_000, byPrice)).isPresent();
        assertThat(topN(session("AUTO"), TABLE, 100_001, byPrice)).isEmpty();
        // a sort key that is no table column
        assertThat(topN(session("AUTO"), TABLE, 10, List.of(new SortItem("unknown", DESC_NULLS_LAST)))).isEmpty();
    }

    private Optional<NscTableHandle> limit(ConnectorSession session, ConnectorTableHandle table, long limit)
    {
        return pushdown.applyLimit(session, table, limit).map(result -> (NscTableHandle) result.getHandle());
    }

    private Optional<NscTableHandle> topN(ConnectorSession session, ConnectorTableHandle table, long count, List<SortItem> sortItems)
    {
        return pushdown.applyTopN(session, table, count, sortItems, ASSIGNMENTS).map(result -> (NscTableHandle) result.getHandle());
    }

    private static ConnectorSession session(String pushdown)
    {
        return TestingConnectorSession.builder()
                .setPropertyMetadata(new NscSessionProperties(new NscConfig()).getSessionProperties())
                .setPropertyValues(Map.of(PUSHDOWN, pushdown))
                .build();
    }
}

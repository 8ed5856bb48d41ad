package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.trino.client.NscMetadataClient;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.FixedPageSource;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code nsc.system.nodes}: the storage nodes as the metadata service knows them, one row each,
 * with what operators check first: live or not, draining or not, space and how many replicas the
 * catalog places on the node.
 */
public final class NscNodesTable
        implements SystemTable
{
    public static final SchemaTableName NAME = new SchemaTableName("system", "nodes");

    private static final ConnectorTableMetadata METADATA = new ConnectorTableMetadata(NAME, List.of(
            column("node_id", VARCHAR, "The id the node registered with"),
            column("address", VARCHAR, "host:port of the node's gRPC endpoint, as in the replicas of \"<table>$files\""),
            column("alive", BOOLEAN, "Heard within the metadata service's node timeout"),
            column("draining", BOOLEAN, "Gets no new replicas; its replicas are being moved elsewhere"),
            column("last_heartbeat", TIMESTAMP_TZ_MILLIS, "When the node was last heard, NULL if never"),
            column("capacity_bytes", BIGINT, "Capacity of the node's data directories"),
            column("free_bytes", BIGINT, "Free space of the node's data directories"),
            column("file_count", BIGINT, "Files the node reported holding"),
            column("replica_count", BIGINT, "Replicas of committed files the catalog places on the node")));

    private final NscMetadataClient client;

    @Inject
    public NscNodesTable(NscMetadataClient client)
    {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public Distribution getDistribution()
    {
        return Distribution.SINGLE_COORDINATOR;
    }

    @Override
    public ConnectorTableMetadata getTableMetadata()
    {
        return METADATA;
    }

    @Override
    public ConnectorPageSource pageSource(ConnectorTransactionHandle transaction, ConnectorSession session, TupleDomain<Integer> constraint)
    {
        // a cluster has tens or hundreds of nodes: one page
        List<StorageNode> nodes = client.listNodes();
        PageBuilder page = new PageBuilder(nodes.size(), METADATA.getColumns().stream().map(ColumnMetadata::getType).toList());
        for (StorageNode node : nodes) {
            page.declarePosition();
            VARCHAR.writeSlice(page.getBlockBuilder(0), utf8Slice(node.getNodeId()));
            VARCHAR.writeSlice(page.getBlockBuilder(1), utf8Slice(node.getAddress()));
            BOOLEAN.writeBoolean(page.getBlockBuilder(2), node.getAlive());
            BOOLEAN.writeBoolean(page.getBlockBuilder(3), node.getDraining());
            if (node.getLastHeartbeatMillis() == 0) {
                page.getBlockBuilder(4).appendNull();
            }
            else {
                TIMESTAMP_TZ_MILLIS.writeLong(page.getBlockBuilder(4), packDateTimeWithZone(node.getLastHeartbeatMillis(), UTC_KEY));
            }
            BIGINT.writeLong(page.getBlockBuilder(5), node.getCapacityBytes());
            BIGINT.writeLong(page.getBlockBuilder(6), node.getFreeBytes());
            BIGINT.writeLong(page.getBlockBuilder(7), node.getFileCount());
            BIGINT.writeLong(page.getBlockBuilder(8), node.getReplicaCount());
        }
        List<Page> pages = page.isEmpty() ? ImmutableList.of() : ImmutableList.of(page.build());
        return new FixedPageSource(pages);
    }

    private static ColumnMetadata column(String name, Type type, String comment)
    {
        return ColumnMetadata.builder().setName(name).setType(type).setComment(Optional.of(comment)).build();
    }
}

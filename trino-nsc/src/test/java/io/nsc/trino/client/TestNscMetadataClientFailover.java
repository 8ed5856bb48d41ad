package io.nsc.trino.client;

import io.nsc.protocol.client.KillableProxy;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.server.ServiceEndpoints;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.CatalogInstance.Death;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.nsc.trino.NscErrorCode.NSC_COMMIT_OUTCOME_UNKNOWN;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The connector's client over two metadata instances serving one catalog, the first of which dies
 * in the middle of a commit: the commit is applied exactly once and reported as it happened.
 */
final class TestNscMetadataClientFailover
{
    private static final String FILE_A = "a".repeat(32);
    private static final String FILE_B = "b".repeat(32);

    private final SharedCatalog catalog = new SharedCatalog();
    private final CatalogInstance first = new CatalogInstance(catalog);
    private final CatalogInstance second = new CatalogInstance(catalog);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private NscMetadataClient client;

    @BeforeEach
    void setUp()
    {
        client = client(start(first).address() + "," + start(second).address());
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    @Test
    void testCommitAppliedBeforeTheInstanceDied()
    {
        long tableId = catalog.commit(createTable("orders")).getTableId();
        first.dieDuringNextCommit(Death.AFTER_APPLYING);

        CommitFilesResponse response = client.commitFiles(insert("orders", tableId, FILE_A, FILE_B));

        assertThat(catalog.commitsApplied()).isEqualTo(2);
        assertThat(catalog.files(tableId)).containsExactly(FILE_A, FILE_B);
        assertThat(response.getTableId()).isEqualTo(tableId);
        assertThat(response.getVersion()).isEqualTo(2);
        // the second instance refused the repeated commit; the table showed it applied
        assertThat(first.commitCalls).hasValue(1);
        assertThat(second.commitCalls).hasValue(1);
        assertThat(second.getTableCalls).hasValue(1);
    }

    @Test
    void testRefreshAppliedBeforeTheInstanceDied()
    {
        long tableId = catalog.commit(createTable("st_totals")).getTableId();
        first.dieDuringNextCommit(Death.AFTER_APPLYING);
        CommitFilesRequest refresh = insert("st_totals", tableId, FILE_A).toBuilder()
                .setMaterializedView(MaterializedViewRefresh.newBuilder().setViewName("totals").setDefinition("{}").setExpectedVersion(4))
                .build();

        CommitFilesResponse response = client.commitFiles(refresh);

        assertThat(catalog.commitsApplied()).isEqualTo(2);
        assertThat(catalog.files(tableId)).containsExactly(FILE_A);
        // found applied by its files: the view's record was in the same transaction, so it is there too
        assertThat(response.hasViewVersion()).isTrue();
        assertThat(response.getViewVersion()).isEqualTo(5);
        assertThat(second.getTableCalls).hasValue(1);
    }

    @Test
    void testCommitAnsweredUnknownAfterApplying()
    {
        long tableId = catalog.commit(createTable("orders")).getTableId();
        first.dieDuringNextCommit(Death.UNKNOWN_AFTER_APPLYING);

        CommitFilesResponse response = client.commitFiles(insert("orders", tableId, FILE_A));

        assertThat(catalog.commitsApplied()).isEqualTo(2);
        assertThat(catalog.files(tableId)).containsExactly(FILE_A);
        assertThat(response.getVersion()).isEqualTo(2);
        // the repeated commit went to the same, living instance, was refused, and the table showed it applied
        assertThat(first.commitCalls).hasValue(2);
        assertThat(first.getTableCalls).hasValue(1);
        assertThat(second.commitCalls).hasValue(0);
    }

    @Test
    void testCommitLostWithTheInstance()
    {
        long tableId = catalog.commit(createTable("orders")).getTableId();
        first.dieDuringNextCommit(Death.BEFORE_APPLYING);

        CommitFilesResponse response = client.commitFiles(insert("orders", tableId, FILE_A));

        assertThat(catalog.commitsApplied()).isEqualTo(2);
        assertThat(catalog.files(tableId)).containsExactly(FILE_A);
        assertThat(response.getVersion()).isEqualTo(2);
        assertThat(first.commitCalls).hasValue(1);
        assertThat(second.commitCalls).hasValue(1);
        assertThat(second.getTableCalls).hasValue(0);
    }

    @Test
    void testCreateTableAsAppliedBeforeTheInstanceDied()
    {
        first.dieDuringNextCommit(Death.AFTER_APPLYING);

        CommitFilesResponse response = client.commitFiles(createTableAs("lineitem", FILE_A));

        assertThat(catalog.commitsApplied()).isEqualTo(1);
        assertThat(catalog.files(response.getTableId())).containsExactly(FILE_A);
        assertThat(response.getTableCreated()).isTrue();
        assertThat(second.commitCalls).hasValue(1);
    }

    @Test
    void testEmptyCreateTableAsCannotBeRecognised()
    {
        first.dieDuringNextCommit(Death.AFTER_APPLYING);

        // the table exists now, but it holds nothing that says who created it
        assertThatThrownBy(() -> client.commitFiles(createTableAs("lineitem")))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_COMMIT_OUTCOME_UNKNOWN.toErrorCode()));
        assertThat(catalog.commitsApplied()).isEqualTo(1);
    }

    @Test
    void testCreateTableAsOfAnotherWriterIsNotMistakenForOurs()
    {
        catalog.commit(createTableAs("lineitem", FILE_B));
        first.dieDuringNextCommit(Death.BEFORE_APPLYING);

        assertThatThrownBy(() -> client.commitFiles(createTableAs("lineitem", FILE_A)))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(TABLE_ALREADY_EXISTS.toErrorCode()));
        assertThat(catalog.commitsApplied()).isEqualTo(1);
    }

    @Test
    void testRefusalOfTheRepeatedCommitIsNotMistakenForSuccess()
    {
        long tableId = catalog.commit(createTable("orders")).getTableId();
        // FILE_A belongs to another table: the repeated commit is refused, and orders does not hold it
        catalog.commit(createTableAs("other", FILE_A));
        first.dieDuringNextCommit(Death.BEFORE_APPLYING);

        assertThatThrownBy(() -> client.commitFiles(insert("orders", tableId, FILE_A)))
                .isInstanceOfSatisfying(TrinoException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(NSC_METADATA_ERROR.toErrorCode());
                    assertThat(e).hasMessageContaining("is already committed to table default.other");
                });
        assertThat(catalog.commitsApplied()).isEqualTo(2);
        assertThat(catalog.files(tableId)).isEmpty();
    }

    @Test
    void testEveryInstanceDiesDuringTheCommit()
    {
        long tableId = catalog.commit(createTable("orders")).getTableId();
        first.dieDuringNextCommit(Death.BEFORE_APPLYING);
        second.dieDuringNextCommit(Death.BEFORE_APPLYING);

        assertThatThrownBy(() -> client.commitFiles(insert("orders", tableId, FILE_A)))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_COMMIT_OUTCOME_UNKNOWN.toErrorCode()));
        assertThat(first.commitCalls).hasValue(1);
        assertThat(second.commitCalls).hasValue(1);
        assertThat(catalog.commitsApplied()).isEqualTo(1);
    }

    @Test
    void testReadsGoToTheSecondWhenTheFirstNeverStarted()
            throws IOException
    {
        catalog.commit(createTable("orders"));
        NscMetadataClient failingOver = client("127.0.0.1:" + unusedPort() + "," + start(second).address());

        assertThat(failingOver.getTable(new SchemaTableName("default", "orders"))).map(TableInfo::getTableName).contains("orders");
        assertThat(second.getTableCalls).hasValue(1);
    }

    private KillableProxy start(CatalogInstance instance)
    {
        ServiceEndpoints endpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(instance), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
        resources.add(endpoints);
        KillableProxy proxy = KillableProxy.start(endpoints.grpcPort());
        resources.add(proxy);
        instance.killedBy(proxy::kill);
        return proxy;
    }

    private NscMetadataClient client(String addresses)
    {
        NscMetadataClient metadataClient = new NscMetadataClient(new NscConfig().setMetadataAddress(addresses), TransportSecurity.insecure());
        resources.add(metadataClient::close);
        return metadataClient;
    }

    private static CommitFilesRequest createTable(String table)
    {
        return CommitFilesRequest.newBuilder().setSchemaName("default").setTableName(table).setCreateTable(true).setMustCreate(true).build();
    }

    private static CommitFilesRequest createTableAs(String table, String... fileIds)
    {
        return createTable(table).toBuilder().addAllFiles(files(fileIds)).build();
    }

    private static CommitFilesRequest insert(String table, long tableId, String... fileIds)
    {
        return CommitFilesRequest.newBuilder().setSchemaName("default").setTableName(table).setExpectedTableId(tableId).addAllFiles(files(fileIds)).build();
    }

    private static List<DataFile> files(String... fileIds)
    {
        return List.of(fileIds).stream().map(fileId -> DataFile.newBuilder().setFileId(fileId).build()).toList();
    }

    private static int unusedPort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

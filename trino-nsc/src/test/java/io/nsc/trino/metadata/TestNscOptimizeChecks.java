package io.nsc.trino.metadata;

import io.airlift.units.DataSize;
import io.nsc.trino.optimize.NscOptimizeHandle;
import io.nsc.trino.optimize.OptimizeTableProcedure;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.metadata.TestingTransaction.NAME;
import static io.nsc.trino.metadata.TestingTransaction.SESSION;
import static io.nsc.trino.metadata.TestingTransaction.assertFails;
import static io.nsc.trino.metadata.TestingTransaction.fragment;
import static io.nsc.trino.metadata.TestingTransaction.table;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.connector.RetryMode.NO_RETRIES;
import static io.trino.spi.connector.RetryMode.RETRIES_ENABLED;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link NscOptimize} refuses before it reads anything, and that it commits nothing when
 * nothing is worth rewriting, against a {@link RecordingMetadataService} whose tables are empty:
 * rewrites of real files are in {@link io.nsc.trino.TestNscOptimize}.
 */
final class TestNscOptimizeChecks
{
    private static final NscColumnHandle A = new NscColumnHandle("a", BIGINT, 0);
    private static final NscTableHandle TABLE = NscTableHandle.forTable(NAME, 7, 3, List.of(A), Map.of());
    private static final Map<String, Object> PROPERTIES = Map.of(OptimizeTableProcedure.FILE_SIZE_THRESHOLD, DataSize.of(100, MEGABYTE));

    private final TestingTransaction transaction = TestingTransaction.start();
    private final RecordingMetadataService service = transaction.service();
    private final NscOptimize optimize = transaction.optimize();

    @AfterEach
    void close()
    {
        transaction.close();
    }

    @Test
    void testRefusedBeforeAnythingIsRead()
    {
        service.addTable(table().build());
        assertThatThrownBy(() -> optimize.getTableHandleForExecute(TABLE, "VACUUM", PROPERTIES, NO_RETRIES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown table procedure: VACUUM");
        assertFails(() -> optimize.getTableHandleForExecute(TABLE, "OPTIMIZE", PROPERTIES, RETRIES_ENABLED), NOT_SUPPORTED,
                "This connector does not support query retries");
        service.setLiveNodes(1);
        assertFails(() -> optimize.getTableHandleForExecute(TABLE, "OPTIMIZE", PROPERTIES, NO_RETRIES), NSC_NOT_ENOUGH_STORAGE_NODES,
                "replication 2 (the default) needs 2 live storage nodes, but only 1 is live");

        service.setLiveNodes(2);
        NscOptimizeHandle handle = (NscOptimizeHandle) optimize.getTableHandleForExecute(TABLE, "OPTIMIZE", PROPERTIES, NO_RETRIES).orElseThrow();
        assertThat(handle.fileSizeThreshold()).isEqualTo(DataSize.of(100, MEGABYTE).toBytes());
        assertThat(service.tableFilesCalls.get()).isZero();
        NscTableHandle filtered = TABLE.withConstraint(TupleDomain.withColumnDomains(Map.of(A, Domain.singleValue(BIGINT, 1L))), true);
        assertFails(() -> optimize.beginTableExecute(handle, filtered), NOT_SUPPORTED,
                "This connector does not support optimize with a WHERE clause: it rewrites whole files");
    }

    @Test
    void testNothingWorthRewritingReadsAndCommitsNothing()
    {
        service.addTable(table().build());
        service.setLiveNodes(2);
        NscOptimizeHandle handle = (NscOptimizeHandle) optimize.getTableHandleForExecute(TABLE, "OPTIMIZE", PROPERTIES, NO_RETRIES).orElseThrow();
        NscTableHandle scan = (NscTableHandle) optimize.beginTableExecute(handle, TABLE).getSourceHandle();
        assertThat(scan.constraint().isNone()).isTrue();

        optimize.finishTableExecute(SESSION, handle, List.of(), List.of());
        assertThat(service.commits).isEmpty();
        assertThatThrownBy(() -> optimize.finishTableExecute(SESSION, handle, List.of(fragment("0123456789abcdef0123456789abcdef")), List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("OPTIMIZE of s.t had nothing to rewrite, but wrote 1 files");
        assertThat(service.commits).isEmpty();
    }
}

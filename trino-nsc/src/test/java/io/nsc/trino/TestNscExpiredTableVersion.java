package io.nsc.trino;

import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.nsc.trino.NscErrorCode.NSC_TABLE_VERSION_EXPIRED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A metadata service that keeps no replaced table version (a retention of 0): a scan whose version
 * a commit replaces while it lists its files fails with a clear error that says to rerun it, rather
 * than mixing versions or reading a version partly; the rerun reads the new version.
 */
final class TestNscExpiredTableVersion
        extends AbstractTestQueryFramework
{
    private static final SchemaTableName TABLE = new SchemaTableName("expiry", "t");

    private final FileListingHook hook = new FileListingHook();

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2, Map.of("metadata.table-version-retention", "0s")));
        return NscQueryRunner.create(cluster, hook.plugin(), Map.of(
                "nsc.table-files-batch-size", "1",
                "nsc.table-files-cache-ttl", "0s"), Map.of());
    }

    @Test
    void testScanOfAReplacedVersionFailsAndItsRerunReadsTheNewOne()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.expiry");
        assertUpdate("CREATE TABLE nsc.expiry.t (k bigint)");
        assertUpdate("INSERT INTO nsc.expiry.t VALUES 1", 1);
        assertUpdate("INSERT INTO nsc.expiry.t VALUES 2", 1);
        FileListingHook.PendingAction insert = hook.beforeBatch(TABLE, 1, () -> assertUpdate("INSERT INTO nsc.expiry.t VALUES 3", 1));

        assertThat(query("SELECT sum(k) FROM nsc.expiry.t")).failure()
                .hasErrorCode(NSC_TABLE_VERSION_EXPIRED)
                .hasMessageMatching("nsc table with id \\d+: Version 3 of table with id \\d+ is no longer retained: version 4 replaced it at least \\S+ ago \\(metadata.table-version-retention\\); rerun the query");
        assertThat(insert.ran()).isTrue();
        assertThat(computeActual("SELECT sum(k) FROM nsc.expiry.t").getOnlyValue()).isEqualTo(6L);
    }

    @Test
    void testTimeTravelToAVersionNoLongerKeptNamesTheRetention()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.expiry");
        assertUpdate("CREATE TABLE nsc.expiry.gone (k bigint)");
        assertUpdate("INSERT INTO nsc.expiry.gone VALUES 1", 1);
        assertThat(query("SELECT * FROM nsc.expiry.gone FOR VERSION AS OF 1")).failure()
                .hasErrorCode(NSC_TABLE_VERSION_EXPIRED)
                .hasMessageMatching("Version 1 of table expiry.gone is no longer kept: versions are kept for \\S+ after a later one replaced them \\(metadata.table-version-retention\\)");
        assertThat(query("SELECT version FROM nsc.expiry.\"gone$history\"")).matches("VALUES BIGINT '2'");

        // a table that keeps its versions longer than the service does
        assertUpdate("CREATE TABLE nsc.expiry.kept (k bigint) WITH (version_retention = '1h')");
        assertUpdate("INSERT INTO nsc.expiry.kept VALUES 1", 1);
        assertUpdate("INSERT INTO nsc.expiry.kept VALUES 2", 1);
        assertThat(query("SELECT sum(k) FROM nsc.expiry.kept FOR VERSION AS OF 2")).matches("VALUES BIGINT '1'");
        assertThat(query("SELECT version FROM nsc.expiry.\"kept$history\"")).matches("VALUES BIGINT '1', 2, 3");
    }
}

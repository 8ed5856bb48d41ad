package io.nsc.tests.cluster;

import com.google.common.collect.ImmutableMap;

import java.util.Map;

/** The settings both test clusters run with, as environment variables of ./nsc and bin/nsc-node. */
final class TestClusterSettings
{
    private TestClusterSettings() {}

    /** Shared settings plus the cluster's own (its var dir, ports, project name). */
    static Map<String, String> environment(Map<String, String> own)
    {
        return ImmutableMap.<String, String>builder()
                .putAll(own)
                // the enclosing Maven build has just built everything the cluster runs
                .put("NSC_SKIP_BUILD", "1")
                // short enough that a test sees the storage nodes reclaim what a cancelled write left
                .put("NSC_ALLOCATION_TIMEOUT", "30s")
                .put("NSC_ORPHAN_CHECK_INTERVAL", "2s")
                .put("NSC_ORPHAN_MIN_AGE", "5s")
                // a lost node's files are copied elsewhere within seconds, so a test can wait for it
                .put("NSC_REPLICA_LOSS_TIMEOUT", "10s")
                .put("NSC_REPLICATION_CHECK_INTERVAL", "1s")
                // dropped tables' files are claimed this long (snapshot reads); a drain waits for them
                .put("NSC_TABLE_VERSION_RETENTION", "5s")
                // small files, so that a write uploads some before a test cancels it
                .put("NSC_WRITER_BUFFER_SIZE", "16MB")
                .put("NSC_WRITER_TARGET_FILE_SIZE", "256kB")
                .buildOrThrow();
    }
}

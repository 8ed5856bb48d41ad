package io.nsc.storage.membership;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.nsc.storage.server.StorageTesting.filesUnder;
import static org.assertj.core.api.Assertions.assertThat;

/** The decisions of {@link ClusterIdentity}, without a metadata service: answers are passed by hand. */
final class TestClusterIdentity
{
    private static final String ADDRESS = "metadata.example.com:7070";
    private static final String CLUSTER_A = "0a0a0a0a-0000-4000-8000-00000000000a";
    private static final String CLUSTER_B = "0b0b0b0b-0000-4000-8000-00000000000b";

    @TempDir
    private Path disk1;
    @TempDir
    private Path disk2;

    @Test
    void testAdoptsAtFirstRegistrationOnly()
            throws IOException
    {
        ClusterIdentity identity = ClusterIdentity.load(List.of(disk1, disk2));
        assertThat(identity.getClusterId()).isEmpty();
        assertThat(identity.isMismatch()).isFalse();
        // no id yet: nothing may be deleted, and a heartbeat gives none
        assertThat(identity.clusterIdForReclaim()).isEmpty();
        identity.answered(ADDRESS, CLUSTER_A);
        assertThat(identity.clusterIdForReclaim()).isEmpty();

        identity.registered(ADDRESS, CLUSTER_A, 3);
        assertThat(identity.clusterIdForReclaim()).contains(CLUSTER_A);
        assertThat(clusterIdFile(disk1)).isEqualTo(CLUSTER_A + "\n");
        assertThat(clusterIdFile(disk2)).isEqualTo(CLUSTER_A + "\n");
        assertThat(filesUnder(disk1.resolve("tmp"))).isEmpty();

        // a later registration with another service does not move the node
        identity.registered(ADDRESS, CLUSTER_B, 3);
        assertThat(identity.isMismatch()).isTrue();
        assertThat(identity.getClusterIdMismatch()).isEqualTo(1);
        assertThat(identity.clusterIdForReclaim()).isEmpty();
        assertThat(identity.getClusterId()).isEqualTo(CLUSTER_A);
        assertThat(clusterIdFile(disk1)).isEqualTo(CLUSTER_A + "\n");

        // and a restarted node reads its id back
        assertThat(ClusterIdentity.load(List.of(disk1, disk2)).getClusterId()).isEqualTo(CLUSTER_A);
    }

    @Test
    void testMismatchLastsWhileTheServiceAnswersAnotherId()
            throws IOException
    {
        Files.writeString(disk1.resolve("cluster-id"), CLUSTER_A + "\n");
        ClusterIdentity identity = ClusterIdentity.load(List.of(disk1));
        assertThat(identity.getClusterId()).isEqualTo(CLUSTER_A);
        // before any answer, the files' own id is enough to ask (each answer is checked again)
        assertThat(identity.clusterIdForReclaim()).contains(CLUSTER_A);

        identity.registered(ADDRESS, CLUSTER_B, 0);
        assertThat(identity.isMismatch()).isTrue();
        assertThat(clusterIdFile(disk1)).isEqualTo(CLUSTER_A + "\n");
        identity.answered(ADDRESS, CLUSTER_B);
        assertThat(identity.isMismatch()).isTrue();

        identity.answered(ADDRESS, CLUSTER_A);
        assertThat(identity.isMismatch()).isFalse();
        assertThat(identity.clusterIdForReclaim()).contains(CLUSTER_A);

        // a service that sends no id at all is not the node's cluster either
        identity.answered(ADDRESS, "");
        assertThat(identity.isMismatch()).isTrue();
    }

    @Test
    void testNoAdoptionOfAMissingOrInvalidId()
            throws IOException
    {
        ClusterIdentity identity = ClusterIdentity.load(List.of(disk1));
        identity.registered(ADDRESS, "", 5);
        assertThat(identity.isMismatch()).isTrue();
        assertThat(identity.clusterIdForReclaim()).isEmpty();
        identity.registered(ADDRESS, "../../etc", 5);
        assertThat(identity.getClusterId()).isEmpty();
        assertThat(disk1.resolve("cluster-id")).doesNotExist();

        // a proper answer later is adopted
        identity.registered(ADDRESS, CLUSTER_A, 5);
        assertThat(identity.isMismatch()).isFalse();
        assertThat(clusterIdFile(disk1)).isEqualTo(CLUSTER_A + "\n");
    }

    @Test
    void testDirectoriesThatDisagreeAreRefused()
            throws IOException
    {
        Files.writeString(disk1.resolve("cluster-id"), CLUSTER_A + "\n");
        Files.writeString(disk2.resolve("cluster-id"), CLUSTER_B + "\n");
        ClusterIdentity identity = ClusterIdentity.load(List.of(disk1, disk2));
        // refused from the start, and by no answer made good
        assertThat(identity.isMismatch()).isTrue();
        assertThat(identity.clusterIdForReclaim()).isEmpty();
        identity.registered(ADDRESS, CLUSTER_A, 1);
        identity.answered(ADDRESS, CLUSTER_A);
        assertThat(identity.isMismatch()).isTrue();
        assertThat(identity.clusterIdForReclaim()).isEmpty();
        assertThat(identity.getClusterId()).isEmpty();
        assertThat(clusterIdFile(disk2)).isEqualTo(CLUSTER_B + "\n");
    }

    @Test
    void testDamagedIdFileIsRefused()
            throws IOException
    {
        // empty, or not an id: not "no id", which would let the node adopt any service's
        for (String content : List.of("", "not an id at all\n")) {
            Files.writeString(disk1.resolve("cluster-id"), content);
            ClusterIdentity identity = ClusterIdentity.load(List.of(disk1, disk2));
            identity.registered(ADDRESS, CLUSTER_A, 1);
            assertThat(identity.isMismatch()).isTrue();
            assertThat(identity.clusterIdForReclaim()).isEmpty();
            assertThat(disk2.resolve("cluster-id")).doesNotExist();
            assertThat(clusterIdFile(disk1)).isEqualTo(content);
        }
    }

    @Test
    void testWritesTheIdToADirectoryWithoutOneOnceConfirmed()
            throws IOException
    {
        Files.writeString(disk1.resolve("cluster-id"), CLUSTER_A + "\n");
        ClusterIdentity identity = ClusterIdentity.load(List.of(disk1, disk2));
        assertThat(identity.getClusterId()).isEqualTo(CLUSTER_A);

        // another cluster's service: the new disk stays without an id
        identity.registered(ADDRESS, CLUSTER_B, 0);
        assertThat(disk2.resolve("cluster-id")).doesNotExist();

        identity.registered(ADDRESS, CLUSTER_A, 0);
        assertThat(clusterIdFile(disk2)).isEqualTo(CLUSTER_A + "\n");
        assertThat(identity.isMismatch()).isFalse();
    }

    private static String clusterIdFile(Path dataDir)
            throws IOException
    {
        return Files.readString(dataDir.resolve("cluster-id"));
    }
}

package io.nsc.tools;

import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.PeerIdentity;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.protocol.security.TransportSecurity;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.reader.MetadataReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

final class TestNscTool
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void badUsagePrintsUsageAndExitsWithTwo()
    {
        assertThat(run()).isEqualTo(2);
        assertThat(err()).contains("nsc load --metadata host:port").contains("nsc tpch --scale S --output DIR");

        reset();
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err()).contains("unknown command 'frobnicate'");

        reset();
        assertThat(run("load", "--metadata", "127.0.0.1:1", "not-a-table-name", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("nsc load: 'not-a-table-name' is not <schema>.<table>").contains("usage: nsc load");

        reset();
        assertThat(run("load", "s.t", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("--metadata is required");

        reset();
        assertThat(run("load", "--metadata", "127.0.0.1:1", "--replication", "zero", "s.t", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("--replication needs a whole number");

        reset();
        assertThat(run("load", "--metadata", "127.0.0.1:1", "s.t", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("name the client certificate with --certificate, --key and --ca").contains("--insecure");

        reset();
        assertThat(run("info", "--metadata", "127.0.0.1:1", "--insecure", "--ca", "ca.pem", "s.t")).isEqualTo(2);
        assertThat(err()).contains("--insecure takes no --certificate, --key or --ca");

        reset();
        assertThat(run("info", "--metadata", "127.0.0.1:1,127.0.0.1:1", "--insecure", "s.t")).isEqualTo(2);
        assertThat(err()).contains("nsc info: metadata service address 127.0.0.1:1 is listed twice").contains("usage: nsc info --metadata host:port[,host:port...]");

        reset();
        assertThat(run("load", "--metadata", "127.0.0.1:1,no-port", "--insecure", "s.t", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("nsc load: metadata service address 'no-port' is not host:port");

        reset();
        assertThat(run("drain", "--metadata", "127.0.0.1:1,", "--insecure", "node-1")).isEqualTo(2);
        assertThat(err()).contains("empty entry in the metadata service addresses");

        reset();
        assertThat(run("certs", "--dir", "/tmp/x", "admin:root")).isEqualTo(2);
        assertThat(err()).contains("Unknown role 'admin': expected metadata, storage, client or server");

        reset();
        assertThat(run("tpch", "--scale", "-1", "--output", "/tmp/x")).isEqualTo(2);
        assertThat(err()).contains("--scale needs a positive number");

        reset();
        assertThat(run("tpch", "--scale", "1", "--output", "/tmp/x", "--tables", "nation,foo")).isEqualTo(2);
        assertThat(err()).contains("Unknown TPC-H table 'foo'");
    }

    @Test
    void failedLoadPrintsOneLineAndExitsWithOne(@TempDir Path directory)
            throws Exception
    {
        Path missing = directory.resolve("missing.parquet");
        assertThat(run("load", "--metadata", "127.0.0.1:1", "--insecure", "s.t", missing.toString())).isEqualTo(1);
        assertThat(err()).startsWith("nsc load: ").contains("missing.parquet does not exist").contains("nothing was loaded");

        reset();
        Path junk = Files.writeString(directory.resolve("junk.parquet"), "not parquet at all, just some text to fill a file");
        assertThat(run("load", "--metadata", "127.0.0.1:1", "--insecure", "s.t", junk.toString())).isEqualTo(1);
        assertThat(err()).startsWith("nsc load: ").contains("junk.parquet").contains("nothing was loaded");
    }

    @Test
    void certsCommandCreatesCaAndKeepsWhatIsUsable(@TempDir Path directory)
            throws Exception
    {
        assertThat(run("certs", "--dir", directory.toString(), "metadata:metadata", "storage:storage-1:node1.example,10.0.0.7", "client:trino")).isEqualTo(0);
        assertThat(directory.resolve("ca.pem")).isRegularFile();
        assertThat(Files.getPosixFilePermissions(directory.resolve("ca.key"))).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(Files.getPosixFilePermissions(directory.resolve("storage-1.key"))).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        TransportSecurity storage = new TlsFiles(directory.resolve("storage-1.pem"), directory.resolve("storage-1.key"), directory.resolve("ca.pem")).toTransportSecurity();
        assertThat(storage.ownIdentity()).contains(new PeerIdentity(ComponentRole.STORAGE, "storage-1"));
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(Files.newInputStream(directory.resolve("storage-1.pem")));
        assertThat(certificate.getSubjectAlternativeNames()).extracting(entry -> String.valueOf(entry.get(1)))
                .containsExactlyInAnyOrder("localhost", "127.0.0.1", "storage-1", "node1.example", "10.0.0.7");

        // a second run keeps the CA and every certificate that is still good
        byte[] ca = Files.readAllBytes(directory.resolve("ca.pem"));
        byte[] trino = Files.readAllBytes(directory.resolve("trino.pem"));
        reset();
        assertThat(run("certs", "--dir", directory.toString(), "client:trino")).isEqualTo(0);
        assertThat(Files.readAllBytes(directory.resolve("ca.pem"))).isEqualTo(ca);
        assertThat(Files.readAllBytes(directory.resolve("trino.pem"))).isEqualTo(trino);

        // one name cannot change roles: it would turn a client into a storage node
        reset();
        assertThat(run("certs", "--dir", directory.toString(), "storage:trino")).isEqualTo(1);
        assertThat(err()).contains("already the certificate of a client, not a storage");
    }

    @Test
    void certsCommandWritesBundlesWithoutTheCaKey(@TempDir Path directory)
            throws Exception
    {
        Path ca = directory.resolve("ca");
        Path bundles = directory.resolve("bundles");
        assertThat(run("certs", "--dir", ca.toString(), "--out", bundles.toString(), "storage:storage-1:node1.example", "client:trino")).isEqualTo(0);
        assertThat(out()).contains("bundle: " + bundles.resolve("storage-1"));
        try (Stream<Path> files = Files.list(bundles.resolve("storage-1"))) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder("ca.pem", "storage-1.pem", "storage-1.key");
        }
        assertThat(bundles.resolve("trino/trino.key")).isRegularFile();
        assertThat(bundles.resolve("trino/ca.key")).doesNotExist();
        assertThat(Files.getPosixFilePermissions(bundles.resolve("storage-1"))).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
        assertThat(Files.getPosixFilePermissions(bundles.resolve("storage-1/storage-1.key"))).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        // the bundle is what a component needs: its identity, trusting the cluster's CA
        TransportSecurity storage = new TlsFiles(bundles.resolve("storage-1/storage-1.pem"), bundles.resolve("storage-1/storage-1.key"), bundles.resolve("storage-1/ca.pem")).toTransportSecurity();
        assertThat(storage.ownIdentity()).contains(new PeerIdentity(ComponentRole.STORAGE, "storage-1"));
        assertThat(Files.readAllBytes(bundles.resolve("storage-1/storage-1.pem"))).isEqualTo(Files.readAllBytes(ca.resolve("storage-1.pem")));

        // run again (every start of a cluster does): the same files
        byte[] key = Files.readAllBytes(bundles.resolve("storage-1/storage-1.key"));
        reset();
        assertThat(run("certs", "--dir", ca.toString(), "--out", bundles.toString(), "storage:storage-1:node1.example")).isEqualTo(0);
        assertThat(Files.readAllBytes(bundles.resolve("storage-1/storage-1.key"))).isEqualTo(key);
    }

    @Test
    void certsCommandIssuesTlsServersThatAreNoComponent(@TempDir Path directory)
            throws Exception
    {
        Path ca = directory.resolve("ca");
        Path bundles = directory.resolve("bundles");
        assertThat(run("certs", "--dir", ca.toString(), "--out", bundles.toString(), "server:postgresql:pg.example,10.0.0.9", "client:trino")).isEqualTo(0);
        assertThat(out()).contains("server postgresql: ").contains("bundle: " + bundles.resolve("postgresql"));
        try (Stream<Path> files = Files.list(bundles.resolve("postgresql"))) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder("ca.pem", "postgresql.pem", "postgresql.key");
        }
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(Files.newInputStream(bundles.resolve("postgresql/postgresql.pem")));
        // verified by the cluster CA under the names clients reach it by (sslmode=verify-full)
        X509Certificate authority = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(Files.newInputStream(ca.resolve("ca.pem")));
        certificate.verify(authority.getPublicKey());
        assertThat(certificate.getSubjectAlternativeNames()).extracting(entry -> String.valueOf(entry.get(1)))
                .containsExactlyInAnyOrder("localhost", "127.0.0.1", "postgresql", "pg.example", "10.0.0.9");
        // it serves and is nobody to nsc: no role, no client authentication
        assertThat(certificate.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(PeerIdentity.fromCertificate(certificate)).isEmpty();
        assertThat(Files.getPosixFilePermissions(bundles.resolve("postgresql/postgresql.key"))).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

        // kept while usable, like a component's
        byte[] pem = Files.readAllBytes(ca.resolve("postgresql.pem"));
        reset();
        assertThat(run("certs", "--dir", ca.toString(), "server:postgresql:pg.example")).isEqualTo(0);
        assertThat(Files.readAllBytes(ca.resolve("postgresql.pem"))).isEqualTo(pem);

        // a name cannot change kind either way: a server made a client could call nsc
        reset();
        assertThat(run("certs", "--dir", ca.toString(), "client:postgresql")).isEqualTo(1);
        assertThat(err()).contains("already the certificate of a server, not a client");
        reset();
        assertThat(run("certs", "--dir", ca.toString(), "server:trino")).isEqualTo(1);
        assertThat(err()).contains("already the certificate of a client, not a server");
        assertThat(Files.readAllBytes(ca.resolve("postgresql.pem"))).isEqualTo(pem);
    }

    @Test
    void tpchCommandWritesTables(@TempDir Path directory)
    {
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.toString(), "--tables", "nation,region", "--rows-per-row-group", "10")).isEqualTo(0);
        assertThat(out()).contains("nation: 25 rows in 1 file").contains("region: 5 rows in 1 file");
        assertThat(directory.resolve("nation/nation-000.parquet")).isRegularFile();
        assertThat(directory.resolve("region/region-000.parquet")).isRegularFile();
        assertThat(directory.resolve("lineitem")).doesNotExist();
        assertThat(out()).containsPattern("peak memory: [0-9.]+ MB resident");
    }

    @Test
    void tpchCommandSortsInRunsOfTheGivenSize(@TempDir Path directory)
    {
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.toString(), "--tables", "orders", "--sort-run-rows", "4000")).isEqualTo(0);
        assertThat(out()).contains("orders: 15000 rows in 1 file").contains("sorted in 4 runs of at most 4000 rows");
        reset();
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.toString(), "--sort-run-rows", "0")).isEqualTo(2);
        assertThat(err()).contains("--sort-run-rows");
    }

    @Test
    void tpchCommandWritesTheCodecAskedFor(@TempDir Path directory)
            throws Exception
    {
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.resolve("snappy").toString(), "--tables", "nation", "--compression", "snappy")).isEqualTo(0);
        assertThat(codecs(directory.resolve("snappy/nation/nation-000.parquet"))).containsOnly(CompressionCodecName.SNAPPY);
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.resolve("none").toString(), "--tables", "nation", "--compression", "NONE")).isEqualTo(0);
        assertThat(codecs(directory.resolve("none/nation/nation-000.parquet"))).containsOnly(CompressionCodecName.UNCOMPRESSED);
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.resolve("default").toString(), "--tables", "nation")).isEqualTo(0);
        assertThat(codecs(directory.resolve("default/nation/nation-000.parquet"))).containsOnly(CompressionCodecName.ZSTD);

        // Trino's writer's bare LZ4 blocks, given Hadoop's framing: files the loader takes as they are
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.resolve("lz4").toString(), "--tables", "nation", "--compression", "lz4")).isEqualTo(0);
        Path lz4 = directory.resolve("lz4/nation/nation-000.parquet");
        assertThat(codecs(lz4)).containsOnly(CompressionCodecName.LZ4);
        assertThat(ParquetFooterParser.parse(lz4).rowCount()).isEqualTo(25);
        try (Stream<Path> files = Files.list(lz4.getParent())) {
            assertThat(files.map(path -> path.getFileName().toString())).containsExactly("nation-000.parquet");
        }

        reset();
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.toString(), "--compression", "brotli")).isEqualTo(2);
        assertThat(err()).contains("--compression: Compression codec 'brotli' is not supported; use one of NONE, SNAPPY, GZIP, ZSTD");
    }

    private static List<CompressionCodecName> codecs(Path file)
            throws Exception
    {
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, ParquetReaderOptions.defaultOptions())) {
            return MetadataReader.readFooter(source, Optional.empty()).getBlocks().stream()
                    .flatMap(block -> block.columns().stream())
                    .map(ColumnChunkMetadata::getCodec)
                    .toList();
        }
    }

    private int run(String... args)
    {
        return NscTool.run(List.of(args), new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
    }

    private String out()
    {
        return out.toString(UTF_8);
    }

    private String err()
    {
        return err.toString(UTF_8);
    }

    private void reset()
    {
        out.reset();
        err.reset();
    }
}

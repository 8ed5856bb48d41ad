package io.nsc.tools.backup;

import com.google.common.collect.Sets;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.catalog.CatalogBackupFormat;
import io.nsc.protocol.catalog.CatalogBackupFormat.Manifest;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.proto.BackupCatalogRequest;
import io.nsc.protocol.proto.BackupCatalogResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.TlsOptions;
import io.nsc.tools.cli.UsageException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.concurrent.TimeUnit.HOURS;

/**
 * Writes an online backup of the running catalog to a new file: streamed from the metadata
 * service into a temporary file next to the target, checked whole (size, layout, every entry's
 * CRC, the manifest naming the cluster the service named), forced to disk, and only then renamed
 * to the target. An existing file is never overwritten, and a failed backup leaves nothing.
 */
public final class BackupCommand
{
    public static final String USAGE = "nsc backup --metadata host:port[,host:port...] " + TlsOptions.USAGE + " <file>";

    private BackupCommand() {}

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        MetadataAddresses metadataAddresses;
        TransportSecurity security;
        Path target;
        try {
            Arguments arguments = Arguments.parse(args, Sets.union(Set.of("metadata"), TlsOptions.VALUE_OPTIONS), TlsOptions.FLAG_OPTIONS);
            metadataAddresses = MetadataAddresses.parse(arguments.required("metadata"));
            security = TlsOptions.parse(arguments);
            if (arguments.positionals().size() != 1) {
                throw new UsageException("need exactly one <file> to write the backup to");
            }
            target = Path.of(arguments.positionals().getFirst()).toAbsolutePath();
        }
        catch (UsageException | IllegalArgumentException e) {
            err.println("nsc backup: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }
        if (Files.exists(target)) {
            err.println("nsc backup: %s exists; a backup never overwrites a file: name a new one".formatted(target));
            return EXIT_FAILED;
        }
        if (!Files.isDirectory(target.getParent())) {
            err.println("nsc backup: directory %s does not exist".formatted(target.getParent()));
            return EXIT_FAILED;
        }

        ManagedChannel channel = GrpcChannels.forMetadataService(metadataAddresses, security);
        Path partial = null;
        try {
            partial = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".part");
            Manifest manifest = receive(channel, partial);
            if (Files.exists(target)) {
                throw new IOException("%s appeared while the backup ran; the backup is not written".formatted(target));
            }
            Files.move(partial, target, ATOMIC_MOVE);
            partial = null;
            forceDirectory(target.getParent());
            out.printf("nsc backup: catalog of cluster %s (schema version %s, %,d database bytes) written to %s%n",
                    manifest.clusterId(), manifest.schemaVersion(), manifest.databaseBytes(), target);
            return EXIT_OK;
        }
        catch (StatusRuntimeException e) {
            err.println("nsc backup: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription() + "; nothing was written");
            return EXIT_FAILED;
        }
        catch (IOException e) {
            err.println("nsc backup: " + e.getMessage() + "; nothing was written");
            return EXIT_FAILED;
        }
        finally {
            GrpcChannels.close(channel);
            if (partial != null) {
                try {
                    Files.deleteIfExists(partial);
                }
                catch (IOException e) {
                    err.println("nsc backup: cannot delete " + partial + ": " + e.getMessage());
                }
            }
        }
    }

    private static Manifest receive(ManagedChannel channel, Path partial)
            throws IOException
    {
        // a catalog of millions of files takes a while to copy and send; the deadline only stops a hung service
        Iterator<BackupCatalogResponse> responses = MetadataServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(1, HOURS)
                .backupCatalog(BackupCatalogRequest.getDefaultInstance());
        if (!responses.hasNext()) {
            throw new IOException("The metadata service sent no backup");
        }
        BackupCatalogResponse header = responses.next();
        if (header.getClusterId().isEmpty() || header.getSizeBytes() < 0) {
            throw new IOException("The metadata service's first backup message names no cluster or size");
        }
        long received = 0;
        try (FileChannel file = FileChannel.open(partial, WRITE)) {
            while (responses.hasNext()) {
                ByteBuffer data = responses.next().getData().asReadOnlyByteBuffer();
                received += data.remaining();
                if (received > header.getSizeBytes()) {
                    throw new IOException("The metadata service sent more than the %s bytes it announced".formatted(header.getSizeBytes()));
                }
                while (data.hasRemaining()) {
                    file.write(data);
                }
            }
            if (received != header.getSizeBytes()) {
                throw new IOException("The backup ended after %s of %s bytes".formatted(received, header.getSizeBytes()));
            }
            file.force(true);
        }
        Manifest manifest = CatalogBackupFormat.read(partial, Optional.empty());
        if (!manifest.clusterId().equals(header.getClusterId()) || manifest.schemaVersion() != header.getSchemaVersion()) {
            throw new IOException("The backup's manifest names cluster %s at schema version %s, the service announced %s at %s".formatted(
                    manifest.clusterId(), manifest.schemaVersion(), header.getClusterId(), header.getSchemaVersion()));
        }
        return manifest;
    }

    private static void forceDirectory(Path directory)
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(directory, READ)) {
            channel.force(true);
        }
    }
}

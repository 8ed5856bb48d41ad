package io.nsc.storage.store;

import com.google.protobuf.ByteString;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

import static com.google.common.base.Preconditions.checkState;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * One upload in progress. Data goes straight to a temporary file in the data directory's
 * {@code tmp/} (memory holds at most one message), the block checksums are computed on the way, and only
 * a complete, verified file is renamed into place. Every way out other than {@link #finish()}
 * succeeding deletes the temporary file.
 * <p>
 * Not thread-safe: gRPC delivers the messages of one call serially.
 */
public final class FileUpload
        implements AutoCloseable
{
    private static final Logger log = Logger.get(FileUpload.class);

    private final ParquetFileStore store;
    private final FileId id;
    private final DataDirectory directory;
    private final long expectedSize;
    private final String displayName;
    private final Path tempPath;
    private final FileChannel channel;
    private final BlockChecksums.Builder checksums;
    private long received;
    private OptionalInt expectedCrc32c = OptionalInt.empty();
    private boolean closed;

    FileUpload(ParquetFileStore store, FileId id, DataDirectory directory, long expectedSize, String displayName)
            throws IOException
    {
        this.store = requireNonNull(store, "store is null");
        this.id = requireNonNull(id, "id is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.expectedSize = expectedSize;
        this.displayName = requireNonNull(displayName, "displayName is null");
        this.tempPath = directory.newTempPath(id, ".part");
        this.checksums = new BlockChecksums.Builder(store.checksumBlockSize());
        this.channel = FileChannel.open(tempPath, CREATE_NEW, WRITE, READ);
    }

    public FileId id()
    {
        return id;
    }

    /**
     * The bytes must have this CRC32C, or the upload fails before the file is stored: a copy
     * from another node must be exactly the file the catalog committed.
     */
    public void expectCrc32c(int crc32c)
    {
        expectedCrc32c = OptionalInt.of(crc32c);
    }

    /** Appends one data message. */
    public void write(ByteString data)
            throws IOException
    {
        checkState(!closed, "upload of %s is closed", id);
        if (received + data.size() > expectedSize) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("Upload of %s: received more than the %s bytes the header announced".formatted(displayName, expectedSize))
                    .asRuntimeException();
        }
        for (ByteBuffer buffer : data.asReadOnlyByteBufferList()) {
            checksums.update(buffer);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
        received += data.size();
        store.recordBytesUploaded(data.size());
    }

    /**
     * Verifies the complete file (size, Parquet footer, every page header within the store's
     * limits: a page that declares a huge size would fail every scan of the file, or the node),
     * makes it durable and moves it into place.
     * On any failure the temporary file is gone when this returns.
     */
    public UploadedFile finish()
            throws IOException
    {
        checkState(!closed, "upload of %s is closed", id);
        try {
            if (received != expectedSize) {
                throw Status.INVALID_ARGUMENT
                        .withDescription("Upload of %s: size mismatch: the header announced %s bytes, received %s".formatted(displayName, expectedSize, received))
                        .asRuntimeException();
            }
            if (expectedCrc32c.isPresent() && expectedCrc32c.getAsInt() != checksums.fileCrc32c()) {
                throw Status.DATA_LOSS
                        .withDescription("%s: received bytes with CRC32C %08x, the file has %08x".formatted(displayName, checksums.fileCrc32c(), expectedCrc32c.getAsInt()))
                        .asRuntimeException();
            }
            channel.force(true);
            ParquetFileSummary summary = parseFooter();
            channel.close();
            return store.commit(directory, id, tempPath, checksums, summary);
        }
        finally {
            // after a successful commit the temporary file has been renamed away, so this only releases the id
            close();
        }
    }

    private ParquetFileSummary parseFooter()
    {
        try {
            return ParquetFooterParser.parseAndValidatePages(new ChannelReader(channel, displayName), received, displayName, store.limits());
        }
        catch (InvalidParquetFileException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
    }

    /** Ends the upload: abandons it unless {@link #finish()} committed it, and deletes the temporary file. Idempotent. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        }
        catch (IOException e) {
            log.warn(e, "Cannot close %s", tempPath);
        }
        try {
            Files.deleteIfExists(tempPath);
        }
        catch (IOException e) {
            // start-up deletes whatever is left in tmp/
            log.warn(e, "Cannot delete %s", tempPath);
        }
        store.uploadEnded(id);
    }
}

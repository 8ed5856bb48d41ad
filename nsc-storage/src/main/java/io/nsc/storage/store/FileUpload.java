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
import java.util.List;
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
 * succeeding deletes the temporary file and returns the space the upload reserved.
 * <p>
 * A disk that fills up anyway (something else wrote to it, or the file system needs more than
 * the file's bytes) answers RESOURCE_EXHAUSTED, like a full disk at the start, so the writer
 * places the replica elsewhere; the partial file is gone before the answer leaves.
 * <p>
 * Not thread-safe: gRPC delivers the messages of one call serially.
 */
public final class FileUpload
        implements AutoCloseable
{
    private static final Logger log = Logger.get(FileUpload.class);

    // glibc's words for ENOSPC and EDQUOT, which the JDK passes on as the IOException's message
    private static final List<String> OUT_OF_SPACE_MESSAGES = List.of("No space left on device", "Disk quota exceeded");
    // below this, an I/O error while writing is taken for a full disk even in other words
    private static final long NEARLY_FULL_BYTES = 1024 * 1024;

    private final ParquetFileStore store;
    private final FileId id;
    private final UploadPlacement.Reservation reservation;
    private final DataDirectory directory;
    private final long expectedSize;
    private final String displayName;
    private final Path tempPath;
    private final FileChannel channel;
    private final BlockChecksums.Builder checksums;
    private long received;
    private OptionalInt expectedCrc32c = OptionalInt.empty();
    private boolean closed;

    FileUpload(ParquetFileStore store, FileId id, UploadPlacement.Reservation reservation, long expectedSize, String displayName)
            throws IOException
    {
        this.store = requireNonNull(store, "store is null");
        this.id = requireNonNull(id, "id is null");
        this.reservation = requireNonNull(reservation, "reservation is null");
        this.directory = reservation.directory();
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
        try {
            for (ByteBuffer buffer : data.asReadOnlyByteBufferList()) {
                checksums.update(buffer);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
        }
        catch (IOException e) {
            checkOutOfSpace(e, "writing");
            throw e;
        }
        received += data.size();
        // the bytes are the file system's to count now
        reservation.written(data.size());
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
            try {
                // delayed allocation may only now find the disk full
                channel.force(true);
            }
            catch (IOException e) {
                checkOutOfSpace(e, "forcing to disk");
                throw e;
            }
            ParquetFileSummary summary = parseFooter();
            channel.close();
            try {
                return store.commit(directory, id, tempPath, checksums, summary);
            }
            catch (IOException e) {
                checkOutOfSpace(e, "storing");
                throw e;
            }
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

    /**
     * A full disk is the client's to work around (another node has room): RESOURCE_EXHAUSTED.
     * Any other I/O error is the node's own failure, and stays one.
     */
    private void checkOutOfSpace(IOException e, String action)
    {
        if (!isOutOfSpace(e)) {
            return;
        }
        // the client hears RESOURCE_EXHAUSTED and goes elsewhere; the operator should hear of a full disk too
        log.warn("Data directory %s is full: upload of %s failed while %s after %s of %s bytes: %s", directory, displayName, action, received, expectedSize, e.getMessage());
        throw Status.RESOURCE_EXHAUSTED
                .withDescription("Upload of %s: data directory %s ran out of space while %s (%s of %s bytes received); the partial file is deleted: place the replica on another node".formatted(
                        displayName, directory, action, received, expectedSize))
                .withCause(e)
                .asRuntimeException();
    }

    private boolean isOutOfSpace(IOException e)
    {
        String message = String.valueOf(e.getMessage());
        if (OUT_OF_SPACE_MESSAGES.stream().anyMatch(message::contains)) {
            return true;
        }
        try {
            return directory.usableBytes() < NEARLY_FULL_BYTES;
        }
        catch (RuntimeException ignored) {
            return false;
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
        reservation.release();
        store.uploadEnded(id);
    }
}

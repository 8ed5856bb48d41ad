package io.nsc.trino.write;

import com.google.common.annotations.VisibleForTesting;
import io.nsc.parquet.wire.PageCodec;
import io.trino.spi.Page;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkState;
import static io.nsc.parquet.LocalFiles.closeAndDelete;
import static io.nsc.protocol.proto.PageCompression.PAGE_COMPRESSION_LZ4;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * Spills pages to a local temporary file, one LZ4-compressed batch of the scan wire format
 * ({@link PageCodec}: Trino's own block encoding) per page, each length-prefixed. A run is read
 * back exactly as it was written, whatever the types, at the cost of one page in memory; encoding
 * it as Parquet would cost more CPU than the sort and lose nothing less.
 */
public final class SortedRunWriter
        implements Closeable
{
    private final Path path;
    private final OutputStream output;
    private final PageCodec codec = new PageCodec(PAGE_COMPRESSION_LZ4);
    private long rowCount;
    private long peakEncodingBytes;
    private boolean closed;

    @VisibleForTesting
    SortedRunWriter(Path path, OutputStream output)
    {
        this.path = requireNonNull(path, "path is null");
        this.output = requireNonNull(output, "output is null");
    }

    /**
     * Creates the file; it must not exist.
     *
     * @param bufferBytes the write buffer: part of what spilling holds in memory
     */
    public static SortedRunWriter create(Path path, int bufferBytes)
            throws IOException
    {
        return new SortedRunWriter(path, new BufferedOutputStream(Files.newOutputStream(path, CREATE_NEW, WRITE), bufferBytes));
    }

    /** Appends the page's rows; the caller appends them in sorted order. */
    public void append(Page page)
            throws IOException
    {
        checkState(!closed, "run %s is closed", path);
        if (page.getPositionCount() == 0) {
            return;
        }
        PageCodec.BatchBuilder batch = codec.newBatch();
        batch.add(page);
        peakEncodingBytes = Math.max(peakEncodingBytes, batch.retainedSizeInBytes());
        batch.build().writeDelimitedTo(output);
        rowCount += page.getPositionCount();
    }

    /** The most memory encoding a page took besides the page: its serialized and compressed copies. */
    public long peakEncodingBytes()
    {
        return peakEncodingBytes;
    }

    /** Closes the file and describes it; if that fails (a full disk fails here), deletes it. */
    public SortedRun finish()
            throws IOException
    {
        checkState(!closed, "run %s is closed", path);
        SortedRun run;
        try {
            output.close();
            run = new SortedRun(path, rowCount, Files.size(path));
        }
        catch (IOException | RuntimeException e) {
            closed = true;
            closeAndDelete(output, path, e);
            throw e;
        }
        closed = true;
        return run;
    }

    /** Closes and deletes the file, if not finished. */
    @Override
    public void close()
            throws IOException
    {
        if (closed) {
            return;
        }
        closed = true;
        closeAndDelete(output, path);
    }
}

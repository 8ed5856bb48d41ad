package io.nsc.trino.write;

import com.google.common.collect.AbstractIterator;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.parquet.wire.PageLimits;
import io.nsc.protocol.proto.PageBatch;
import io.trino.spi.Page;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;

import static io.nsc.protocol.proto.PageCompression.PAGE_COMPRESSION_LZ4;
import static java.util.Objects.requireNonNull;

/**
 * The pages of a {@link SortedRun}, read one at a time in the order they were written.
 * I/O errors surface as {@link UncheckedIOException}, and so does a damaged run: one that ends
 * before its row count (a truncated file) or does not decode is an error, never fewer rows.
 */
public final class SortedRunReader
        extends AbstractIterator<Page>
        implements Closeable
{
    // what a reader holds besides its page: a small read buffer, since a merge opens many readers
    static final int INPUT_BUFFER_BYTES = 8 * 1024;
    // the run was written by this process: its pages are as large as the writer made them
    private static final PageLimits LIMITS = new PageLimits(Integer.MAX_VALUE, Long.MAX_VALUE);

    private final SortedRun run;
    private final InputStream input;
    private final PageCodec codec = new PageCodec(PAGE_COMPRESSION_LZ4, LIMITS);
    private long rowsRead;
    private long peakDecodingBytes;

    private SortedRunReader(SortedRun run, InputStream input)
    {
        this.run = requireNonNull(run, "run is null");
        this.input = requireNonNull(input, "input is null");
    }

    public static SortedRunReader open(SortedRun run)
            throws IOException
    {
        return new SortedRunReader(run, new BufferedInputStream(Files.newInputStream(run.path()), INPUT_BUFFER_BYTES));
    }

    @Override
    protected Page computeNext()
    {
        PageBatch batch;
        try {
            batch = PageBatch.parseDelimitedFrom(input);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read sorted run %s: %s".formatted(run.path(), e.getMessage()), e);
        }
        if (batch == null) {
            if (rowsRead != run.rowCount()) {
                throw corrupt("it ends after %s of its %s rows".formatted(rowsRead, run.rowCount()), null);
            }
            return endOfData();
        }
        List<Page> pages;
        try {
            pages = codec.decode(batch);
        }
        catch (RuntimeException e) {
            // PageCodec refuses a damaged batch with IllegalArgumentException or MemoryLimitExceededException
            throw corrupt(e.getMessage(), e);
        }
        if (pages.size() != 1) {
            throw corrupt("it holds a batch of %s pages".formatted(pages.size()), null);
        }
        Page page = pages.getFirst();
        rowsRead += page.getPositionCount();
        // decoding held the batch as read, its compressed copy, the decompressed bytes and the page
        peakDecodingBytes = Math.max(peakDecodingBytes, 2L * batch.getData().size() + batch.getUncompressedSize() + page.getRetainedSizeInBytes());
        return page;
    }

    /** The most memory reading a page took besides the page before it: the page and the bytes it was decoded from. */
    public long peakDecodingBytes()
    {
        return peakDecodingBytes;
    }

    // the run was written by this process moments ago: a damaged one is a disk's failure, like a read error
    private UncheckedIOException corrupt(String reason, Exception cause)
    {
        String message = "Sorted run %s is damaged: %s".formatted(run.path(), reason);
        return new UncheckedIOException(message, new IOException(message, cause));
    }

    @Override
    public void close()
            throws IOException
    {
        input.close();
    }
}

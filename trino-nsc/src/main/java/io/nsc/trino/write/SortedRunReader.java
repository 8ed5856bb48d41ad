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

import static com.google.common.base.Verify.verify;
import static io.nsc.protocol.proto.PageCompression.PAGE_COMPRESSION_LZ4;
import static java.util.Objects.requireNonNull;

/**
 * The pages of a {@link SortedRun}, read one at a time in the order they were written.
 * I/O errors surface as {@link UncheckedIOException}, and a run that ends before its row count
 * (a truncated file) as an error, never as fewer rows.
 */
public final class SortedRunReader
        extends AbstractIterator<Page>
        implements Closeable
{
    // what a reader holds besides its page: runs are read a page at a time, in large reads
    static final int INPUT_BUFFER_BYTES = 8 * 1024;
    // the run was written by this process: its pages are as large as the writer made them
    private static final PageLimits LIMITS = new PageLimits(Integer.MAX_VALUE, Long.MAX_VALUE);

    private final SortedRun run;
    private final InputStream input;
    private final PageCodec codec = new PageCodec(PAGE_COMPRESSION_LZ4, LIMITS);
    private long rowsRead;

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
            verify(rowsRead == run.rowCount(), "sorted run %s ends after %s of its %s rows", run.path(), rowsRead, run.rowCount());
            return endOfData();
        }
        List<Page> pages = codec.decode(batch);
        verify(pages.size() == 1, "sorted run %s holds a batch of %s pages", run.path(), pages.size());
        rowsRead += pages.getFirst().getPositionCount();
        return pages.getFirst();
    }

    @Override
    public void close()
            throws IOException
    {
        input.close();
    }
}

package io.nsc.trino.metadata;

import io.nsc.trino.metadata.TableFiles.FileEntry;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The files of one table version, a batch at a time, in commit order. A reader that stops before
 * the last batch closes it, so that the files it kept aside for the cache are let go.
 */
public interface TableFileBatches
        extends Iterator<List<FileEntry>>, AutoCloseable
{
    /** Files the listing keeps besides the batch it last handed out (to cache them once it has all): part of what a reader holds. */
    long filesKept();

    @Override
    void close();

    /** No batch at all: a scan that can match no row lists nothing. */
    static TableFileBatches none()
    {
        return of(Collections.emptyIterator());
    }

    /** Batches held elsewhere (the cache's, or a test's): nothing kept besides them. */
    static TableFileBatches of(Iterator<List<FileEntry>> batches)
    {
        return new TableFileBatches()
        {
            @Override
            public boolean hasNext()
            {
                return batches.hasNext();
            }

            @Override
            public List<FileEntry> next()
            {
                return batches.next();
            }

            @Override
            public long filesKept()
            {
                return 0;
            }

            @Override
            public void close() {}
        };
    }
}

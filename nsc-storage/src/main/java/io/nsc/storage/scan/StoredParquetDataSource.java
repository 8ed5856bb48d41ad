package io.nsc.storage.scan;

import io.nsc.storage.store.ChecksummedReader;
import io.nsc.storage.store.StoredFile;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * A stored file for trino-parquet's reader: every byte it decodes was checked against the file's
 * block checksums first, so damaged bytes fail the scan as damage, never as wrong rows.
 */
final class StoredParquetDataSource
        extends AbstractParquetDataSource
{
    private final ChecksummedReader reader;

    StoredParquetDataSource(StoredFile file, ChecksummedReader reader, ParquetReaderOptions options)
    {
        super(new ParquetDataSourceId(file.id().value()), file.sizeBytes(), options);
        this.reader = requireNonNull(reader, "reader is null");
    }

    /** Bytes read from disk, including what checking whole blocks added to the reads. */
    long diskBytesRead()
    {
        return reader.bytesRead();
    }

    @Override
    protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
            throws IOException
    {
        reader.readFully(position, buffer, bufferOffset, bufferLength);
    }

    @Override
    public void close()
            throws IOException
    {
        reader.close();
    }
}

package io.nsc.parquet;

import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static java.nio.file.StandardOpenOption.READ;

/**
 * A Parquet file on the local file system, for trino-parquet's reader. trino-parquet ships no
 * such source outside its tests, and the tools only ever read local files.
 */
public final class LocalParquetDataSource
        extends AbstractParquetDataSource
{
    private final Path path;
    private final FileChannel channel;

    private LocalParquetDataSource(Path path, FileChannel channel, ParquetReaderOptions options)
            throws IOException
    {
        super(new ParquetDataSourceId(path.toString()), channel.size(), options);
        this.path = path;
        this.channel = channel;
    }

    public static LocalParquetDataSource open(Path path, ParquetReaderOptions options)
            throws IOException
    {
        FileChannel channel = FileChannel.open(path, READ);
        try {
            return new LocalParquetDataSource(path, channel, options);
        }
        catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public Path path()
    {
        return path;
    }

    @Override
    protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
            throws IOException
    {
        ByteBuffer target = ByteBuffer.wrap(buffer, bufferOffset, bufferLength);
        long filePosition = position;
        while (target.hasRemaining()) {
            int read = channel.read(target, filePosition);
            if (read < 0) {
                // a footer that points past the end of the file: report it as such, not as a short buffer
                throw new EOFException("Reading %s bytes at offset %s goes past the end of %s (%s bytes)".formatted(bufferLength, position, path, channel.size()));
            }
            filePosition += read;
        }
    }

    @Override
    public void close()
            throws IOException
    {
        channel.close();
    }
}

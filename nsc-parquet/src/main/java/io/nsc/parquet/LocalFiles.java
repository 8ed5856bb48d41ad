package io.nsc.parquet;

import com.google.common.io.Closer;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Giving up a local file being written: its stream closed and the file deleted, the delete tried
 * even when the close fails (a full disk fails the close's flush), so that a writer that fails
 * or is aborted leaves nothing behind.
 */
public final class LocalFiles
{
    private LocalFiles() {}

    /** Closes the stream, then deletes the file; throws the first failure, the other suppressed. */
    public static void closeAndDelete(Closeable output, Path file)
            throws IOException
    {
        // a Closer closes in reverse order of registration: the stream first
        try (Closer closer = Closer.create()) {
            closer.register(() -> Files.deleteIfExists(file));
            closer.register(output);
        }
    }

    /** Closes the stream and deletes the file after {@code failure}, to which their own failures are added. */
    public static void closeAndDelete(Closeable output, Path file, Exception failure)
    {
        try {
            closeAndDelete(output, file);
        }
        catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}

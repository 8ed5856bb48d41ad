package io.nsc.storage.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much a data directory's file system holds and has left for this process. The real one asks
 * the file system; tests substitute one whose figures they set, to drive placement without
 * filling a disk.
 */
public interface DiskSpace
{
    DiskSpace FILE_SYSTEM = new DiskSpace()
    {
        @Override
        public long usableBytes(Path directory)
                throws IOException
        {
            return Files.getFileStore(directory).getUsableSpace();
        }

        @Override
        public long totalBytes(Path directory)
                throws IOException
        {
            return Files.getFileStore(directory).getTotalSpace();
        }
    };

    /** Bytes this process may still write (without the file system's root-only reserve). */
    long usableBytes(Path directory)
            throws IOException;

    long totalBytes(Path directory)
            throws IOException;
}

package io.nsc.storage.store;

import com.google.common.collect.ImmutableList;
import io.grpc.Status;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Where a new file goes: the data directory with the most room, judged together with every upload
 * still in progress. A directory's room is its usable space, less what uploads in progress there
 * still have to write, less the space kept free for the system ({@code storage.reserved-space}).
 * Placement and the reservations it hands out change under one lock, so two uploads never count
 * on the same free bytes.
 */
final class UploadPlacement
{
    private final List<DataDirectory> directories;
    private final long systemReserveBytes;
    private final Object lock = new Object();

    UploadPlacement(List<DataDirectory> directories, long systemReserveBytes)
    {
        this.directories = ImmutableList.copyOf(requireNonNull(directories, "directories is null"));
        checkArgument(!this.directories.isEmpty(), "no data directories");
        checkArgument(systemReserveBytes >= 0, "systemReserveBytes is negative");
        this.systemReserveBytes = systemReserveBytes;
    }

    /**
     * Reserves {@code sizeBytes} in the directory with the most room until the upload writes them
     * or ends.
     *
     * @throws io.grpc.StatusRuntimeException RESOURCE_EXHAUSTED when no data directory has room
     * for the file (the writer places the replica on another node)
     */
    Reservation reserve(FileId id, long sizeBytes)
    {
        synchronized (lock) {
            DataDirectory best = directories.getFirst();
            long bestRoom = Long.MIN_VALUE;
            for (DataDirectory candidate : directories) {
                long room = room(candidate);
                if (room > bestRoom) {
                    best = candidate;
                    bestRoom = room;
                }
            }
            if (bestRoom < sizeBytes) {
                throw Status.RESOURCE_EXHAUSTED
                        .withDescription("No data directory has room for file %s of %s bytes: the most is %s bytes in %s (usable %s, still to be written by uploads in progress %s, kept free by storage.reserved-space %s)".formatted(
                                id, sizeBytes, Math.max(bestRoom, 0), best, best.usableBytes(), best.reservedBytes(), systemReserveBytes))
                        .asRuntimeException();
            }
            best.addReservedBytes(sizeBytes);
            return new Reservation(best, sizeBytes);
        }
    }

    /** The bytes new files may still take: each directory's room, none counted below zero. */
    long freeBytes()
    {
        synchronized (lock) {
            return directories.stream().mapToLong(directory -> Math.max(room(directory), 0)).sum();
        }
    }

    /** Bytes that uploads in progress announced and have not written yet. */
    long reservedBytes()
    {
        synchronized (lock) {
            return directories.stream().mapToLong(DataDirectory::reservedBytes).sum();
        }
    }

    long capacityBytes()
    {
        return directories.stream().mapToLong(DataDirectory::totalBytes).sum();
    }

    // may be negative: the disk is fuller than the reserve allows
    private long room(DataDirectory directory)
    {
        return directory.usableBytes() - directory.reservedBytes() - systemReserveBytes;
    }

    /**
     * The bytes an upload announced and has not written yet, held on its data directory. Writing
     * hands them over to the file system's own accounting; ending the upload returns the rest.
     */
    final class Reservation
    {
        private final DataDirectory directory;
        private long remaining;

        private Reservation(DataDirectory directory, long bytes)
        {
            this.directory = requireNonNull(directory, "directory is null");
            this.remaining = bytes;
        }

        DataDirectory directory()
        {
            return directory;
        }

        void written(long bytes)
        {
            synchronized (lock) {
                long released = Math.min(bytes, remaining);
                remaining -= released;
                directory.addReservedBytes(-released);
            }
        }

        void release()
        {
            written(Long.MAX_VALUE);
        }
    }
}

package io.nsc.storage.read;

import io.airlift.stats.CounterStat;
import io.airlift.units.DataSize;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/** Serves byte ranges of stored files, and counts what that costs the disks and the network. */
public final class RangeReader
{
    /** The counters every call updates. */
    record Counters(CounterStat bytesReadFromDisk, CounterStat bytesSent, CounterStat readRequests, CounterStat corruptReads) {}

    private final ParquetFileStore store;
    private final long coalesceGapBytes;
    private final int maxChunkBytes;
    private final int maxRanges;
    private final Counters counters = new Counters(new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat());

    public RangeReader(ParquetFileStore store, DataSize coalesceGap, DataSize maxChunk, int maxRanges)
    {
        this.store = requireNonNull(store, "store is null");
        checkArgument(maxRanges > 0, "maxRanges must be positive");
        this.maxRanges = maxRanges;
        this.coalesceGapBytes = requireNonNull(coalesceGap, "coalesceGap is null").toBytes();
        this.maxChunkBytes = toIntExact(requireNonNull(maxChunk, "maxChunk is null").toBytes());
        checkArgument(maxChunkBytes > 0, "maxChunk must be positive");
    }

    /**
     * Streams the ranges to the caller in request order, each range in messages of at most the
     * maximum chunk size.
     *
     * @throws io.grpc.StatusRuntimeException OUT_OF_RANGE when a range is negative or outside
     * the file, INVALID_ARGUMENT for more ranges than allowed (before anything is sent)
     */
    public void read(StoredFile file, List<ByteRange> ranges, ServerCallStreamObserver<ReadRangesResponse> call)
    {
        counters.readRequests().update(1);
        if (ranges.size() > maxRanges) {
            // the plan holds an entry per range: bounded before it is made
            throw Status.INVALID_ARGUMENT
                    .withDescription("Read of file %s asks for %s ranges, more than the %s allowed".formatted(file.id(), ranges.size(), maxRanges))
                    .asRuntimeException();
        }
        ReadPlan plan = ReadPlan.create(ranges, file.sizeBytes(), coalesceGapBytes, maxChunkBytes);
        new RangeReadCall(store, file, plan, maxChunkBytes, call, counters).start();
    }

    @Managed
    @Nested
    public CounterStat getBytesReadFromDisk()
    {
        return counters.bytesReadFromDisk();
    }

    @Managed
    @Nested
    public CounterStat getBytesSent()
    {
        return counters.bytesSent();
    }

    /** Reads that found bytes not matching their checksums (each quarantined the copy). */
    @Managed
    @Nested
    public CounterStat getCorruptReads()
    {
        return counters.corruptReads();
    }

    @Managed
    @Nested
    public CounterStat getReadRequests()
    {
        return counters.readRequests();
    }
}

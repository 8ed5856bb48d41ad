package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.SizeOf;
import io.nsc.protocol.stats.CompactFileStats;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorSplit;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOf;
import static java.util.Objects.requireNonNull;

/**
 * Row groups of one file that survived pruning. The addresses are the storage nodes holding a
 * replica, in the order the page source tries them; any Trino worker can read them.
 *
 * @param rowGroupStats the row groups' compact stats (base64), carried by a split planned as a
 * raw read while the join's dynamic filter was still to come, so that the worker can choose its
 * mode again once the filter stands ({@link LateDynamicFilter})
 * @param awaitsDynamicFilter whether such a split, opened before any of the filter reached the
 * worker, waits for it there (a probe side large enough for the filter to save more than the wait:
 * {@link DynamicFilterWait#workersAwait})
 */
public record NscSplit(
        String fileId,
        long fileSize,
        List<Integer> rowGroups,
        long rowCount,
        long compressedBytes,
        List<HostAddress> addresses,
        ScanMode mode,
        Optional<String> rowGroupStats,
        boolean awaitsDynamicFilter)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(NscSplit.class);
    private static final int INTEGER_INSTANCE_SIZE = instanceSize(Integer.class);

    public NscSplit
    {
        requireNonNull(fileId, "fileId is null");
        rowGroups = ImmutableList.copyOf(requireNonNull(rowGroups, "rowGroups is null"));
        addresses = ImmutableList.copyOf(requireNonNull(addresses, "addresses is null"));
        checkArgument(!rowGroups.isEmpty(), "split without row groups");
        checkArgument(!addresses.isEmpty(), "split without replicas");
        requireNonNull(mode, "mode is null");
        requireNonNull(rowGroupStats, "rowGroupStats is null");
        checkArgument(rowGroupStats.isPresent() || !awaitsDynamicFilter, "a split awaiting a dynamic filter carries its row groups' stats");
    }

    public NscSplit(String fileId, long fileSize, List<Integer> rowGroups, long rowCount, long compressedBytes, List<HostAddress> addresses, ScanMode mode)
    {
        this(fileId, fileSize, rowGroups, rowCount, compressedBytes, addresses, mode, Optional.empty(), false);
    }

    /** The split with only some of its row groups (at least one), its rows and bytes recounted from the file's stats. */
    public NscSplit withRowGroups(List<Integer> newRowGroups, CompactFileStats stats)
    {
        long rows = newRowGroups.stream().mapToLong(stats::rowGroupRowCount).sum();
        long bytes = newRowGroups.stream().mapToLong(stats::rowGroupCompressedSize).sum();
        return new NscSplit(fileId, fileSize, newRowGroups, rows, bytes, addresses, mode, Optional.empty(), false);
    }

    public NscSplit withMode(ScanMode newMode)
    {
        return new NscSplit(fileId, fileSize, rowGroups, rowCount, compressedBytes, addresses, newMode, rowGroupStats, awaitsDynamicFilter);
    }

    /**
     * The split carrying its row groups' stats, taken from its file's.
     *
     * @param awaitDynamicFilter whether it waits on the worker for a filter none of which stands yet
     */
    public NscSplit withRowGroupStats(CompactFileStats fileStats, boolean awaitDynamicFilter)
    {
        String encoded = Base64.getEncoder().encodeToString(fileStats.ofRowGroups(rowGroups).encoded());
        return new NscSplit(fileId, fileSize, rowGroups, rowCount, compressedBytes, addresses, mode, Optional.of(encoded), awaitDynamicFilter);
    }

    /** The stats it carries, its row groups numbered from 0 in split order. */
    public Optional<CompactFileStats> decodedRowGroupStats()
    {
        return rowGroupStats.map(encoded -> CompactFileStats.wrap(Base64.getDecoder().decode(encoded)));
    }

    @Override
    public List<HostAddress> getAddresses()
    {
        return addresses;
    }

    @Override
    public boolean isRemotelyAccessible()
    {
        return true;
    }

    @Override
    public Map<String, String> getSplitInfo()
    {
        return Map.of("fileId", fileId, "rowGroups", rowGroups.toString(), "replicas", addresses.toString(), "mode", mode.name());
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE
                + estimatedSizeOf(fileId)
                + estimatedSizeOf(rowGroups, _ -> INTEGER_INSTANCE_SIZE)
                + estimatedSizeOf(addresses, HostAddress::getRetainedSizeInBytes)
                + sizeOf(0L)
                + sizeOf(rowGroupStats, SizeOf::estimatedSizeOf);
    }
}

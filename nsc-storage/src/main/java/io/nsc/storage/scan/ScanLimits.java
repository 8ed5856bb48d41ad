package io.nsc.storage.scan;

import io.nsc.parquet.wire.RequestLimits;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What one scan request may ask of a node: checked before the request's contents are decoded,
 * so that a malformed or oversized request costs the node an error message and nothing more.
 *
 * @param maxRequestBytes the largest serialized request
 * @param maxRowGroups the most row groups one scan names
 * @param request the limits on its filter expressions and values
 * @param memoryBytes the memory budget of one scan: decoded values, group maps, top-N heaps, batches
 * @param admissionBytes what a scan reserves in the node's memory pool before it starts, and the step its reservation grows by
 */
public record ScanLimits(long maxRequestBytes, int maxRowGroups, RequestLimits request, long memoryBytes, long admissionBytes)
{
    public ScanLimits
    {
        checkArgument(maxRequestBytes > 0, "maxRequestBytes must be positive");
        checkArgument(maxRowGroups > 0, "maxRowGroups must be positive");
        requireNonNull(request, "request is null");
        checkArgument(memoryBytes > 0, "memoryBytes must be positive");
        checkArgument(admissionBytes > 0, "admissionBytes must be positive");
    }
}

package io.nsc.parquet.wire;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What one scan request may ask a node to decode, beyond what its memory budget bounds.
 *
 * @param maxExpressionNodes the most nodes in all of a request's filter expressions together
 * @param maxExpressionDepth the deepest nesting of one expression
 * @param maxValueBytes the most bytes of values (domain bounds, comparison and IN values, LIKE
 * patterns) in one request, as they arrive on the wire
 */
public record RequestLimits(int maxExpressionNodes, int maxExpressionDepth, long maxValueBytes)
{
    public static final RequestLimits DEFAULT = new RequestLimits(10_000, 64, 16L * 1024 * 1024);

    public RequestLimits
    {
        checkArgument(maxExpressionNodes > 0, "maxExpressionNodes must be positive");
        checkArgument(maxExpressionDepth > 0, "maxExpressionDepth must be positive");
        checkArgument(maxValueBytes > 0, "maxValueBytes must be positive");
    }
}

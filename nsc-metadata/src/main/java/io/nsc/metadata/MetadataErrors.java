package io.nsc.metadata;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * The failures the metadata service reports to its callers. They are gRPC statuses from the
 * start (rather than an exception type of our own mapped at the edge) because every caller of
 * the catalog, placement and membership code is a gRPC method, and one vocabulary is easier to
 * keep consistent than two.
 */
public final class MetadataErrors
{
    /**
     * Descriptions travel in a gRPC trailer, percent-encoded, and a client refuses trailers over
     * 8 KiB with a bare INTERNAL; a description naming a client's input (a table name of any
     * length) is cut so that even nine encoded bytes per character stay below that.
     */
    static final int MAX_DESCRIPTION_LENGTH = 800;

    private MetadataErrors() {}

    @FormatMethod
    public static StatusRuntimeException invalidArgument(@FormatString String format, Object... args)
    {
        return error(Status.INVALID_ARGUMENT, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException notFound(@FormatString String format, Object... args)
    {
        return error(Status.NOT_FOUND, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException alreadyExists(@FormatString String format, Object... args)
    {
        return error(Status.ALREADY_EXISTS, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException failedPrecondition(@FormatString String format, Object... args)
    {
        return error(Status.FAILED_PRECONDITION, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException aborted(@FormatString String format, Object... args)
    {
        return error(Status.ABORTED, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException outOfRange(@FormatString String format, Object... args)
    {
        return error(Status.OUT_OF_RANGE, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException resourceExhausted(@FormatString String format, Object... args)
    {
        return error(Status.RESOURCE_EXHAUSTED, format, args);
    }

    @FormatMethod
    public static StatusRuntimeException unavailable(@FormatString String format, Object... args)
    {
        return error(Status.UNAVAILABLE, format, args);
    }

    @FormatMethod
    private static StatusRuntimeException error(Status status, @FormatString String format, Object... args)
    {
        return status.withDescription(bounded(format.formatted(args))).asRuntimeException();
    }

    private static String bounded(String description)
    {
        if (description.length() <= MAX_DESCRIPTION_LENGTH) {
            return description;
        }
        int end = MAX_DESCRIPTION_LENGTH - 3;
        if (Character.isHighSurrogate(description.charAt(end - 1))) {
            end--;
        }
        return description.substring(0, end) + "...";
    }
}

package io.nsc.parquet.wire;

import com.google.common.collect.ImmutableMap;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.TrinoException;

import java.util.Map;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.DIVISION_BY_ZERO;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.StandardErrorCode.INVALID_CAST_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A failure of the query's own expressions on a storage node (an overflow, a division by zero, a
 * cast that does not fit), carried to the worker with Trino's error code and message, so that the
 * query fails exactly as it would have had Trino evaluated the expression: not as a storage error,
 * and without trying another replica, which holds the same rows.
 */
public final class QueryFailures
{
    // the errors Trino's own operators raise over values
    private static final Map<String, ErrorCodeSupplier> PASSED_ON = ImmutableMap.of(
            NUMERIC_VALUE_OUT_OF_RANGE.name(), NUMERIC_VALUE_OUT_OF_RANGE,
            DIVISION_BY_ZERO.name(), DIVISION_BY_ZERO,
            INVALID_CAST_ARGUMENT.name(), INVALID_CAST_ARGUMENT,
            GENERIC_INTERNAL_ERROR.name(), GENERIC_INTERNAL_ERROR);
    private static final Metadata.Key<String> ERROR_CODE = Metadata.Key.of("nsc-query-error-code", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<byte[]> MESSAGE = Metadata.Key.of("nsc-query-error-message-bin", Metadata.BINARY_BYTE_MARSHALLER);
    // well under gRPC's limit on a response's trailers
    private static final int MAX_MESSAGE_LENGTH = 2048;

    private QueryFailures() {}

    /** Whether the failure is one of the query's expressions, to be passed on as it is. */
    public static boolean isQueryFailure(TrinoException failure)
    {
        return PASSED_ON.containsKey(failure.getErrorCode().getName());
    }

    /**
     * OUT_OF_RANGE, described for the node's log and the worker's message, with the error code
     * and Trino's message in the trailers.
     */
    public static StatusRuntimeException toStatus(TrinoException failure, String description)
    {
        Metadata trailers = new Metadata();
        trailers.put(ERROR_CODE, failure.getErrorCode().getName());
        String message = String.valueOf(failure.getMessage());
        trailers.put(MESSAGE, message.substring(0, Math.min(message.length(), MAX_MESSAGE_LENGTH)).getBytes(UTF_8));
        return Status.OUT_OF_RANGE.withDescription(description).asRuntimeException(trailers);
    }

    /** The query's failure a storage node passed on, as Trino would have raised it. */
    public static Optional<TrinoException> fromStatus(Throwable failure)
    {
        Metadata trailers = Status.trailersFromThrowable(failure);
        if (trailers == null || Status.fromThrowable(failure).getCode() != Status.Code.OUT_OF_RANGE) {
            return Optional.empty();
        }
        String code = trailers.get(ERROR_CODE);
        byte[] message = trailers.get(MESSAGE);
        if (code == null || message == null || !PASSED_ON.containsKey(code)) {
            return Optional.empty();
        }
        return Optional.of(new TrinoException(PASSED_ON.get(code), new String(message, UTF_8), failure));
    }
}

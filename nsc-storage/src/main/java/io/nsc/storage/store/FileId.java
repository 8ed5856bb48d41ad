package io.nsc.storage.store;

import io.grpc.Status;

import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * The id the metadata service issued for a file: exactly 32 lower-case hex characters. Only a
 * validated id ever becomes part of a path, so no client-supplied string can reach the file
 * system (no "..", no separators, no case-folding surprises).
 */
public record FileId(String value)
{
    private static final int LENGTH = 32;

    /** What an id retains: the record and its string of 32 characters. */
    static final long RETAINED_BYTES = instanceSize(FileId.class) + estimatedSizeOf("0".repeat(LENGTH));

    public FileId
    {
        requireNonNull(value, "value is null");
        if (!isValid(value)) {
            throw new IllegalArgumentException("Invalid file id: " + value);
        }
    }

    /**
     * Parses an id received from a client; an invalid id is the client's error, so it fails
     * with INVALID_ARGUMENT.
     */
    public static FileId fromClient(String value)
    {
        if (value == null || !isValid(value)) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("Invalid file id '%s': expected %s lower-case hex characters".formatted(abbreviate(value), LENGTH))
                    .asRuntimeException();
        }
        return new FileId(value);
    }

    public static boolean isValid(String value)
    {
        if (value.length() != LENGTH) {
            return false;
        }
        for (int i = 0; i < LENGTH; i++) {
            char c = value.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** The sub-directory of {@code files/} holding this file: spreads files over 256 directories. */
    public String shard()
    {
        return value.substring(0, 2);
    }

    @Override
    public String toString()
    {
        return value;
    }

    // error messages echo the bad id, but never an unbounded amount of client input
    private static String abbreviate(String value)
    {
        if (value == null) {
            return "";
        }
        return value.length() <= 80 ? value : value.substring(0, 80) + "...";
    }
}

package io.nsc.metadata.catalog;

import java.util.Optional;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * One readable version of a table, as its history records it.
 *
 * @param operation the statement that made the version; empty for versions committed before the
 *        catalog recorded it (schema version 12), as are the totals
 * @param rowCount rows of the table at this version
 * @param expiresMillis when the retention stops keeping the version; empty for the current one
 */
public record TableVersion(
        long version,
        long committedMillis,
        Optional<String> operation,
        OptionalLong rowCount,
        OptionalLong fileCount,
        OptionalLong sizeBytes,
        boolean current,
        OptionalLong expiresMillis)
{
    public TableVersion
    {
        checkArgument(version >= 1, "version is below 1");
        requireNonNull(operation, "operation is null");
        requireNonNull(rowCount, "rowCount is null");
        requireNonNull(fileCount, "fileCount is null");
        requireNonNull(sizeBytes, "sizeBytes is null");
        requireNonNull(expiresMillis, "expiresMillis is null");
        checkArgument(current == expiresMillis.isEmpty(), "only the current version never expires");
    }
}

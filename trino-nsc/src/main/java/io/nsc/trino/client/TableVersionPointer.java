package io.nsc.trino.client;

import java.time.Instant;

import static com.google.common.base.Preconditions.checkArgument;

/** Which earlier version of a table a query reads: {@code FOR VERSION AS OF} or {@code FOR TIMESTAMP AS OF}. */
public sealed interface TableVersionPointer
{
    /** A version by its number, as {@code "<table>$history"} lists them. */
    record Version(long version)
            implements TableVersionPointer
    {
        public Version
        {
            checkArgument(version >= 1, "Table versions start at 1, got %s", version);
        }

        @Override
        public String toString()
        {
            return "version " + version;
        }
    }

    /** The version that was current at a point in time. */
    record AsOf(long epochMillis)
            implements TableVersionPointer
    {
        @Override
        public String toString()
        {
            return "the version as of " + Instant.ofEpochMilli(epochMillis);
        }
    }
}

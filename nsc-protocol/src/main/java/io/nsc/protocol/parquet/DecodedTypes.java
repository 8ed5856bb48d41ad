package io.nsc.protocol.parquet;

import java.util.Set;

/**
 * The type a reader asks Trino 476's Parquet reader for, per nsc column type. The reader decodes
 * TIME(NANOS) only into time(3)/time(6) and UTC-adjusted TIMESTAMP(NANOS) only into
 * timestamp(3) with time zone; nsc serves them at full precision by decoding the INT64 nanos as
 * bigint and converting (see the connector's page source and the loader's verifier).
 */
public final class DecodedTypes
{
    public static final String NANOS_AS_BIGINT = "bigint";

    private static final Set<String> DECODED_AS_NANOS = Set.of("time(9)", "timestamp(9) with time zone");

    private DecodedTypes() {}

    /** The type to decode a column of {@code nscType} as; the column type itself for all but two. */
    public static String decodedType(String nscType)
    {
        return isNanosAsBigint(nscType) ? NANOS_AS_BIGINT : nscType;
    }

    public static boolean isNanosAsBigint(String nscType)
    {
        return DECODED_AS_NANOS.contains(nscType);
    }
}

package io.nsc.parquet.stats;

import io.airlift.slice.Slice;
import io.airlift.slice.XxHash64;
import io.nsc.protocol.stats.FilterValueType;
import io.trino.spi.block.Block;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.Optional;

import static java.lang.Math.toIntExact;

/**
 * The hash a Parquet split-block Bloom filter keeps of a value: XXH64 (seed 0) of its plain
 * encoding, 4 little-endian bytes for an INT32, 8 for an INT64, the bytes of a BYTE_ARRAY. The
 * writer hashes the values of a row group with it, the coordinator the values of an equality, so
 * both sides agree by construction.
 */
public final class BloomFilterHashes
{
    // XXH64 of 4 bytes, as the reference algorithm computes inputs shorter than 8 bytes
    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long PRIME64_3 = 0x165667B19E3779F9L;
    private static final long PRIME64_5 = 0x27D4EB2F165667C5L;

    private BloomFilterHashes() {}

    /**
     * The Parquet physical type nsc writes a column of this Trino type as, for the types whose
     * equality is equality of that encoding; empty for the others (floating point: 0.0 and -0.0,
     * NaN; timestamps and decimals: not hashed yet).
     */
    public static Optional<FilterValueType> valueType(Type type)
    {
        return switch (type) {
            case BigintType _ -> Optional.of(FilterValueType.INT64);
            case IntegerType _, SmallintType _, TinyintType _, DateType _ -> Optional.of(FilterValueType.INT32);
            case VarcharType _, VarbinaryType _ -> Optional.of(FilterValueType.BYTE_ARRAY);
            default -> Optional.empty();
        };
    }

    /**
     * @param value a non-null value as Trino passes it for a type {@link #valueType} maps to {@code valueType}: a Long or a Slice
     */
    public static long hash(FilterValueType valueType, Object value)
    {
        return switch (valueType) {
            case INT32 -> hashInt(toIntExact((Long) value));
            case INT64 -> XxHash64.hash((Long) value);
            case BYTE_ARRAY -> XxHash64.hash((Slice) value);
        };
    }

    /**
     * The hash of the non-null value at {@code position}.
     */
    public static long hash(Type type, FilterValueType valueType, Block block, int position)
    {
        return switch (valueType) {
            case INT32 -> hashInt(toIntExact(type.getLong(block, position)));
            case INT64 -> XxHash64.hash(type.getLong(block, position));
            case BYTE_ARRAY -> XxHash64.hash(type.getSlice(block, position));
        };
    }

    static long hashInt(int value)
    {
        long hash = PRIME64_5 + Integer.BYTES;
        hash ^= (value & 0xFFFF_FFFFL) * PRIME64_1;
        hash = Long.rotateLeft(hash, 23) * PRIME64_2 + PRIME64_3;
        hash ^= hash >>> 33;
        hash *= PRIME64_2;
        hash ^= hash >>> 29;
        hash *= PRIME64_3;
        hash ^= hash >>> 32;
        return hash;
    }
}

package io.nsc.protocol.stats;

/**
 * The Parquet physical type whose plain encoding a column chunk's Bloom filter hashed: a reader
 * hashes a value the same way (4 little-endian bytes, 8 little-endian bytes, or the value's bytes)
 * before it asks the filter, and asks no filter of another type.
 */
public enum FilterValueType
{
    INT32,
    INT64,
    BYTE_ARRAY,
}

package io.nsc.protocol.parquet;

import static java.util.Objects.checkFromToIndex;

/**
 * Walks one struct in Thrift's compact encoding (how Parquet writes footers and page headers)
 * without decoding it, so that Thrift's own decoder, which sizes lists and strings by the counts
 * it reads, only ever sees counts the bytes can back. Each list, set and map must fit its
 * elements (every element takes at least one byte) in the bytes that remain, every string its
 * length; nesting is bounded; and what the decoded objects would retain is estimated and bounded,
 * since an empty struct of one byte becomes an object of dozens.
 */
final class ThriftCompactChecker
{
    // nested structs and containers: Parquet's own structures nest less than ten deep
    static final int MAX_DEPTH = 64;

    private static final int STOP = 0;
    private static final int BOOLEAN_TRUE = 1;
    private static final int BOOLEAN_FALSE = 2;
    private static final int BYTE = 3;
    private static final int I16 = 4;
    private static final int I32 = 5;
    private static final int I64 = 6;
    private static final int DOUBLE = 7;
    private static final int BINARY = 8;
    private static final int LIST = 9;
    private static final int SET = 10;
    private static final int MAP = 11;
    private static final int STRUCT = 12;
    private static final int UUID = 13;

    // estimates of what decoded values retain: an object with its fields, a reference slot, a string's object and array headers
    private static final int STRUCT_BYTES = 64;
    private static final int SLOT_BYTES = 8;
    private static final int CONTAINER_BYTES = 40;
    private static final int BINARY_BYTES = 48;

    /** The bytes end before the struct does: the caller may retry with more of them. */
    static final class TruncatedException
            extends Exception
    {
        TruncatedException()
        {
            super("truncated Thrift struct", null, false, false);
        }
    }

    private final byte[] data;
    private final int limit;
    private final long maxDecodedBytes;
    private int position;
    private long decodedBytes;

    private ThriftCompactChecker(byte[] data, int offset, int limit, long maxDecodedBytes)
    {
        checkFromToIndex(offset, limit, data.length);
        this.data = data;
        this.position = offset;
        this.limit = limit;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    /**
     * Checks the struct that starts at {@code data[offset]} and ends before {@code limit}.
     *
     * @return the offset just after the struct
     * @throws IllegalArgumentException when the bytes are not a struct Thrift could decode within the bounds
     * @throws TruncatedException when the struct runs past {@code limit}
     */
    static int checkStruct(byte[] data, int offset, int limit, long maxDecodedBytes)
            throws TruncatedException
    {
        ThriftCompactChecker checker = new ThriftCompactChecker(data, offset, limit, maxDecodedBytes);
        checker.struct(1);
        return checker.position;
    }

    private void struct(int depth)
            throws TruncatedException
    {
        checkDepth(depth);
        charge(STRUCT_BYTES);
        while (true) {
            int header = readByte();
            if (header == STOP) {
                return;
            }
            int type = header & 0x0F;
            if ((header & 0xF0) == 0) {
                // no delta: the field id follows as a zigzag varint
                readVarint(3);
            }
            if (type == BOOLEAN_TRUE || type == BOOLEAN_FALSE) {
                // a struct field's boolean is in its header
                continue;
            }
            value(type, depth);
        }
    }

    private void value(int type, int depth)
            throws TruncatedException
    {
        charge(SLOT_BYTES);
        switch (type) {
            case BOOLEAN_TRUE, BOOLEAN_FALSE, BYTE -> skip(1);
            case I16 -> readVarint(3);
            case I32 -> readVarint(5);
            case I64 -> readVarint(10);
            case DOUBLE -> skip(8);
            case UUID -> skip(16);
            case BINARY -> {
                long length = readVarint(5);
                if (length > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("Thrift string of %s bytes".formatted(length));
                }
                charge(BINARY_BYTES + 2 * length);
                skip((int) length);
            }
            case LIST, SET -> {
                int header = readByte();
                long size = (header >>> 4) & 0x0F;
                if (size == 15) {
                    size = readVarint(5);
                }
                container(size, header & 0x0F, -1, depth);
            }
            case MAP -> {
                long size = readVarint(5);
                if (size > 0) {
                    int types = readByte();
                    container(size, (types >>> 4) & 0x0F, types & 0x0F, depth);
                }
            }
            case STRUCT -> struct(depth + 1);
            default -> throw new IllegalArgumentException("unknown Thrift type %s".formatted(type));
        }
    }

    /** A list or set (valueType -1) or a map: its size must fit the bytes left, one byte per element at least. */
    private void container(long size, int keyType, int valueType, int depth)
            throws TruncatedException
    {
        checkDepth(depth + 1);
        long perElement = (valueType < 0 ? 1 : 2);
        if (size > Integer.MAX_VALUE || size * perElement > limit - position) {
            // too many for the bytes left: either truncated, or a lie; a bigger window tells which
            if (size * perElement > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("Thrift container of %s elements".formatted(size));
            }
            throw new TruncatedException();
        }
        charge(CONTAINER_BYTES + SLOT_BYTES * size);
        for (long element = 0; element < size; element++) {
            element(keyType, depth + 1);
            if (valueType >= 0) {
                element(valueType, depth + 1);
            }
        }
    }

    private void element(int type, int depth)
            throws TruncatedException
    {
        // inside containers a boolean takes a byte of its own
        if (type == BOOLEAN_TRUE || type == BOOLEAN_FALSE) {
            skip(1);
            return;
        }
        value(type, depth);
    }

    private long readVarint(int maxBytes)
            throws TruncatedException
    {
        long result = 0;
        for (int shift = 0, count = 0; ; shift += 7, count++) {
            if (count == maxBytes) {
                throw new IllegalArgumentException("Thrift varint longer than %s bytes".formatted(maxBytes));
            }
            int next = readByte();
            result |= (long) (next & 0x7F) << shift;
            if ((next & 0x80) == 0) {
                return result;
            }
        }
    }

    private int readByte()
            throws TruncatedException
    {
        if (position >= limit) {
            throw new TruncatedException();
        }
        return data[position++] & 0xFF;
    }

    private void skip(int bytes)
            throws TruncatedException
    {
        if (bytes > limit - position) {
            throw new TruncatedException();
        }
        position += bytes;
    }

    private void charge(long bytes)
    {
        decodedBytes += bytes;
        if (decodedBytes > maxDecodedBytes) {
            throw new IllegalArgumentException("Thrift structure decodes to more than %s bytes".formatted(maxDecodedBytes));
        }
    }

    private static void checkDepth(int depth)
    {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("Thrift structure nested deeper than %s".formatted(MAX_DEPTH));
        }
    }
}

package io.nsc.parquet;

import org.apache.parquet.format.CompressionCodec;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The compression codecs nsc writes Parquet files with (the connector's CTAS, INSERT and DELETE
 * rewrites, and the TPC-H generator): those trino-parquet 476's writer produces and its reader
 * decodes again.
 *
 * <p>LZ4 is not one of them. Trino 476's writer compresses LZ4 pages as bare LZ4 blocks under the
 * codec LZ4, while its reader (like parquet-mr) decodes LZ4 only in Hadoop's block framing, so it
 * cannot read its own LZ4 files back; LZ4_RAW, the bare blocks under their proper name, it
 * neither writes nor reads.
 */
public enum ParquetWriteCodec
{
    NONE(CompressionCodec.UNCOMPRESSED),
    SNAPPY(CompressionCodec.SNAPPY),
    GZIP(CompressionCodec.GZIP),
    ZSTD(CompressionCodec.ZSTD);

    /** What nsc writes unless told otherwise (see benchmarks/scan-rate/results/codecs.md). */
    public static final ParquetWriteCodec DEFAULT = ZSTD;

    private final CompressionCodec parquetCodec;

    ParquetWriteCodec(CompressionCodec parquetCodec)
    {
        this.parquetCodec = requireNonNull(parquetCodec, "parquetCodec is null");
    }

    /** The codec the file's column chunks name. */
    public CompressionCodec parquetCodec()
    {
        return parquetCodec;
    }

    /**
     * The codec of this name, in any case.
     *
     * @throws IllegalArgumentException naming the codecs nsc writes, and why LZ4 is not one
     */
    public static ParquetWriteCodec parse(String name)
    {
        String upper = requireNonNull(name, "name is null").trim().toUpperCase(Locale.ENGLISH);
        for (ParquetWriteCodec codec : values()) {
            if (codec.name().equals(upper)) {
                return codec;
            }
        }
        if (upper.startsWith("LZ4")) {
            throw new IllegalArgumentException("Compression codec '%s' is not supported: Trino 476 writes LZ4 Parquet pages that its own reader cannot decode; use one of %s"
                    .formatted(name, names()));
        }
        throw new IllegalArgumentException("Compression codec '%s' is not supported; use one of %s".formatted(name, names()));
    }

    /** The names {@link #parse} accepts, for messages: "NONE, SNAPPY, GZIP, ZSTD". */
    public static String names()
    {
        return Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));
    }
}

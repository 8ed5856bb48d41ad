package io.nsc.tools;

import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.trino.parquet.writer.ParquetSchemaConverter;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.ArrayType;
import org.apache.parquet.format.CompressionCodec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;

/** Writes small Parquet files that tests need. */
public final class ParquetTestFiles
{
    private ParquetTestFiles() {}

    /** A valid Parquet file with a nested column ({@code tags array(varchar)}), which nsc refuses. */
    /**
     * {@code rows} rows of a unique bigint {@code id} in one row group, written by trino-parquet's
     * own writer with a Bloom filter on {@code id}, sized as that writer sizes every filter: for
     * 100,000 distinct values.
     */
    public static void writeFileWithTrinoBloomFilter(Path file, int rows)
            throws IOException
    {
        BlockBuilder ids = BIGINT.createFixedSizeBlockBuilder(rows);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(ids, row * 7L);
        }
        ParquetSchemaConverter schema = new ParquetSchemaConverter(List.of(BIGINT), List.of("id"), false, false);
        ParquetWriterOptions options = ParquetWriterOptions.builder()
                .setBloomFilterColumns(Set.of("id"))
                .build();
        try (OutputStream output = Files.newOutputStream(file);
                ParquetWriter writer = new ParquetWriter(output, schema.getMessageType(), schema.getPrimitiveTypes(), options, CompressionCodec.SNAPPY, "476", Optional.empty(), Optional.empty())) {
            writer.write(new Page(ids.build()));
        }
    }

    public static void writeNestedFile(Path file)
            throws IOException
    {
        ArrayType tagsType = new ArrayType(VARCHAR);
        BlockBuilder ids = BIGINT.createFixedSizeBlockBuilder(3);
        ArrayBlockBuilder tags = tagsType.createBlockBuilder(null, 3);
        for (int row = 0; row < 3; row++) {
            BIGINT.writeLong(ids, row);
            int count = row;
            tags.buildEntry(elements -> {
                for (int i = 0; i < count; i++) {
                    VARCHAR.writeString(elements, "tag" + i);
                }
            });
        }
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, List.of("id", "tags"), List.of(BIGINT, tagsType), CompressionCodec.SNAPPY)) {
            writer.writeRowGroup(new Page(ids.build(), tags.build()));
        }
    }
}

package io.nsc.tools;

import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.ArrayType;
import org.apache.parquet.format.CompressionCodec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;



/** Writes small Parquet files that tests need. */
public final class ParquetTestFiles
{
    private ParquetTestFiles() {}

    /** A valid Parquet file with a nested column ({@code tags array(varchar)}), which nsc refuses. */
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

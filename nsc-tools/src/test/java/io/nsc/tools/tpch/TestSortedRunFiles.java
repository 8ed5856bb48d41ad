package io.nsc.tools.tpch;

import io.nsc.parquet.ParquetRows;
import io.trino.spi.PageBuilder;
import io.trino.spi.type.Type;
import io.trino.tpch.Order;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import static io.trino.tpch.TpchTable.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestSortedRunFiles
{
    private static final List<Type> TYPES = TpchColumns.types(ORDERS);

    @TempDir
    Path directory;

    private TpchRowBuffer<Order> buffer;
    private int orderDate;
    private int[] order;

    @BeforeEach
    void fillBuffer()
    {
        buffer = new TpchRowBuffer<>(ORDERS, 0);
        for (Order row : ORDERS.createGenerator(0.001, 1, 1)) {
            buffer.append(row);
        }
        orderDate = buffer.columnIndex("o_orderdate");
        order = buffer.stableOrderBy(orderDate);
    }

    @Test
    void readsBackWhatWasWrittenAndCopiesIt()
            throws IOException
    {
        SortedRun run = writeRowByRow(directory.resolve("run"));
        assertThat(run.rowCount()).isEqualTo(1_500);
        assertThat(readAll(run)).isEqualTo(ParquetRows.rows(buffer.page(order, 0, order.length), TYPES));

        SortedRun copy;
        try (SortedRunReader reader = new SortedRunReader(run, TYPES);
                SortedRunWriter writer = new SortedRunWriter(directory.resolve("copy"))) {
            while (reader.nextGroup()) {
                writer.copyGroup(reader);
            }
            copy = writer.finish();
        }
        assertThat(copy.sizeBytes()).isEqualTo(run.sizeBytes());
        assertThat(readAll(copy)).isEqualTo(readAll(run));
    }

    @Test
    void aRunCutShortIsReportedNotRead()
            throws IOException
    {
        SortedRun run = writeRowByRow(directory.resolve("run"));
        SortedRun claimsMore = new SortedRun(run.file(), run.rowCount() + 1, run.sizeBytes());
        assertThatThrownBy(() -> readAll(claimsMore))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("ends after 1500 rows, 1501 were written");
        SortedRun claimsLess = new SortedRun(run.file(), run.rowCount() - 1, run.sizeBytes());
        assertThatThrownBy(() -> readAll(claimsLess))
                .hasMessageContaining("has a group of 1 rows after 1499 of 1499 rows");
    }

    @Test
    void groupKeysMustNotDecrease()
            throws IOException
    {
        try (SortedRunWriter writer = new SortedRunWriter(directory.resolve("run"))) {
            writer.writeGroup(10, buffer, order, 0, 1);
            assertThatThrownBy(() -> writer.writeGroup(9, buffer, order, 1, 2))
                    .hasMessage("group keys must not decrease: 9 after 10");
        }
    }

    @Test
    void aReaderRefusesToSkipRows()
            throws IOException
    {
        SortedRun run;
        try (SortedRunWriter writer = new SortedRunWriter(directory.resolve("run"))) {
            writer.writeGroup(1, buffer, order, 0, 3);
            writer.writeGroup(2, buffer, order, 3, 4);
            run = writer.finish();
        }
        try (SortedRunReader reader = new SortedRunReader(run, TYPES)) {
            assertThat(reader.nextGroup()).isTrue();
            assertThat(reader.groupRowsLeft()).isEqualTo(3);
            reader.readRow(new PageBuilder(TYPES));
            assertThatThrownBy(reader::nextGroup).hasMessageContaining("2 rows of the group with key 1");
        }
    }

    private SortedRun writeRowByRow(Path file)
            throws IOException
    {
        // one group per row: equal keys in consecutive groups are allowed
        try (SortedRunWriter writer = new SortedRunWriter(file)) {
            for (int i = 0; i < order.length; i++) {
                writer.writeGroup(buffer.intValue(orderDate, order[i]), buffer, order, i, i + 1);
            }
            return writer.finish();
        }
    }

    private static List<List<Object>> readAll(SortedRun run)
            throws IOException
    {
        PageBuilder page = new PageBuilder(TYPES);
        try (SortedRunReader reader = new SortedRunReader(run, TYPES)) {
            while (reader.nextGroup()) {
                while (reader.groupRowsLeft() > 0) {
                    reader.readRow(page);
                }
            }
        }
        return ParquetRows.rows(page.build(), TYPES);
    }
}

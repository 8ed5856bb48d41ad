package io.nsc.protocol.stats;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_CHUNKS;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_KIND;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_MIN_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_MIN_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_NULL_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_NULL_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_PRESENCE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_RANGE_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_SIZE_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_SIZE_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_COLUMN;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_ENTRY_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_LENGTH;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_ROW_GROUP;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_VALUE_TYPE;
import static io.nsc.protocol.stats.CompactStatsLayout.FOOTER_LENGTH_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.FOOTER_OFFSET_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.HEADER_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_ALL;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_BITMAP;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_NONE;
import static io.nsc.protocol.stats.CompactStatsLayout.ROWS_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.ROWS_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_GROUP_HEADER_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.bitmapBytes;
import static io.nsc.protocol.stats.CompactStatsLayout.filterOrder;
import static io.nsc.protocol.stats.CompactStatsLayout.minMaxPresent;
import static io.nsc.protocol.stats.CompactStatsLayout.readUnsigned;
import static io.nsc.protocol.stats.CompactStatsLayout.width;
import static io.nsc.protocol.stats.CompactStatsLayout.writeUnsigned;
import static org.assertj.core.api.Assertions.assertThat;

final class TestCompactStatsLayout
{
    @Test
    void testFieldsFollowEachOther()
    {
        // each field ends where the next begins, and each section where its last field ends:
        // an offset edited alone would shift what every reader of older encodings sees
        assertThat(FOOTER_OFFSET_OFFSET + Long.BYTES).isEqualTo(FOOTER_LENGTH_OFFSET);
        assertThat(FOOTER_LENGTH_OFFSET + Integer.BYTES).isEqualTo(HEADER_SIZE);

        assertThat(COLUMN_KIND + 1).isEqualTo(COLUMN_PRESENCE);
        assertThat(COLUMN_PRESENCE + 1).isEqualTo(COLUMN_MIN_BASE);
        assertThat(COLUMN_MIN_BASE + Long.BYTES).isEqualTo(COLUMN_MIN_WIDTH);
        assertThat(COLUMN_MIN_WIDTH + 1).isEqualTo(COLUMN_RANGE_WIDTH);
        assertThat(COLUMN_RANGE_WIDTH + 1).isEqualTo(COLUMN_SIZE_BASE);
        assertThat(COLUMN_SIZE_BASE + Integer.BYTES).isEqualTo(COLUMN_SIZE_WIDTH);
        assertThat(COLUMN_SIZE_WIDTH + 1).isEqualTo(COLUMN_NULL_BASE);
        assertThat(COLUMN_NULL_BASE + Integer.BYTES).isEqualTo(COLUMN_NULL_WIDTH);
        assertThat(COLUMN_NULL_WIDTH + 1).isEqualTo(COLUMN_CHUNKS);
        assertThat(COLUMN_CHUNKS + Integer.BYTES).isEqualTo(COLUMN_SIZE);

        assertThat(ROWS_BASE + Long.BYTES).isEqualTo(ROWS_WIDTH);
        assertThat(ROWS_WIDTH + 1).isEqualTo(OFFSET_BASE);
        assertThat(OFFSET_BASE + Long.BYTES).isEqualTo(OFFSET_WIDTH);
        assertThat(OFFSET_WIDTH + 1).isEqualTo(ROW_GROUP_HEADER_SIZE);

        assertThat(FILTER_ROW_GROUP + Integer.BYTES).isEqualTo(FILTER_COLUMN);
        assertThat(FILTER_COLUMN + Integer.BYTES).isEqualTo(FILTER_VALUE_TYPE);
        assertThat(FILTER_VALUE_TYPE + 1).isEqualTo(FILTER_OFFSET);
        assertThat(FILTER_OFFSET + Integer.BYTES).isEqualTo(FILTER_LENGTH);
        assertThat(FILTER_LENGTH + Integer.BYTES).isEqualTo(FILTER_ENTRY_SIZE);
    }

    @Test
    void testUnsignedAtEveryWidthAndPosition()
    {
        // the last positions of the array take the byte-by-byte path, the others one word read
        for (int width = 0; width <= Long.BYTES; width++) {
            long mask = width == Long.BYTES ? -1 : (1L << (width * Byte.SIZE)) - 1;
            long value = 0x8877_6655_4433_2211L & mask;
            for (int position = 0; position <= 12 - width; position++) {
                byte[] bytes = new byte[12];
                Arrays.fill(bytes, (byte) 0xAB);
                writeUnsigned(bytes, position, value, width);
                assertThat(readUnsigned(bytes, position, width)).isEqualTo(value);
                // the bytes around the value are left alone
                for (int index = 0; index < bytes.length; index++) {
                    if (index < position || index >= position + width) {
                        assertThat(bytes[index]).isEqualTo((byte) 0xAB);
                    }
                }
            }
        }
    }

    @Test
    void testWidth()
    {
        assertThat(width(0)).isZero();
        assertThat(width(1)).isEqualTo(1);
        assertThat(width(0xFF)).isEqualTo(1);
        assertThat(width(0x100)).isEqualTo(2);
        assertThat(width(Integer.MAX_VALUE)).isEqualTo(4);
        assertThat(width(Long.MAX_VALUE)).isEqualTo(8);
        // widths are of unsigned values: a difference past Long.MAX_VALUE needs all 8 bytes
        assertThat(width(-1)).isEqualTo(8);
    }

    @Test
    void testPresence()
    {
        assertThat(bitmapBytes(PRESENCE_NONE, 100)).isZero();
        assertThat(bitmapBytes(PRESENCE_ALL, 100)).isZero();
        assertThat(bitmapBytes(PRESENCE_BITMAP, 0)).isZero();
        assertThat(bitmapBytes(PRESENCE_BITMAP, 1)).isEqualTo(1);
        assertThat(bitmapBytes(PRESENCE_BITMAP, 8)).isEqualTo(1);
        assertThat(bitmapBytes(PRESENCE_BITMAP, 9)).isEqualTo(2);

        // row groups 0 and 9 of a bitmap starting at 1
        byte[] bitmap = {(byte) 0xFF, 0b0000_0001, 0b0000_0010};
        assertThat(minMaxPresent(bitmap, PRESENCE_BITMAP, 1, 0)).isTrue();
        assertThat(minMaxPresent(bitmap, PRESENCE_BITMAP, 1, 1)).isFalse();
        assertThat(minMaxPresent(bitmap, PRESENCE_BITMAP, 1, 8)).isFalse();
        assertThat(minMaxPresent(bitmap, PRESENCE_BITMAP, 1, 9)).isTrue();
        assertThat(minMaxPresent(bitmap, PRESENCE_ALL, 1, 1)).isTrue();
        assertThat(minMaxPresent(bitmap, PRESENCE_NONE, 1, 0)).isFalse();
    }

    @Test
    void testFilterOrderIsByColumnThenRowGroup()
    {
        assertThat(filterOrder(0, Integer.MAX_VALUE)).isLessThan(filterOrder(1, 0));
        assertThat(filterOrder(1, 0)).isLessThan(filterOrder(1, 1));
        assertThat(filterOrder(0, 0)).isZero();
    }
}

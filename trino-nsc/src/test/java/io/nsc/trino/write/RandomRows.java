package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.createTimeType;
import static io.trino.spi.type.TimestampType.createTimestampType;
import static io.trino.spi.type.TimestampWithTimeZoneType.createTimestampWithTimeZoneType;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Float.floatToRawIntBits;

/**
 * Rows of every type nsc writes, from a seeded random source, with few distinct values per
 * column (so that sort keys tie often), about a tenth nulls, and the edge values of each type:
 * NaN, infinities and -0.0, empty strings, extreme decimals and instants in several zones.
 * Column 0 is a bigint row number in the order the rows were made.
 */
final class RandomRows
{
    static final CharType CHAR_3 = createCharType(3);
    static final DecimalType SHORT_DECIMAL = createDecimalType(9, 2);
    static final DecimalType LONG_DECIMAL = createDecimalType(38, 10);
    static final TimestampType TIMESTAMP_MICROS = createTimestampType(6);
    static final TimestampType TIMESTAMP_NANOS = createTimestampType(9);
    static final TimestampWithTimeZoneType TIMESTAMP_TZ_MILLIS = createTimestampWithTimeZoneType(3);
    static final TimestampWithTimeZoneType TIMESTAMP_TZ_MICROS = createTimestampWithTimeZoneType(6);

    static final List<Type> TYPES = ImmutableList.of(
            BIGINT, BOOLEAN, TINYINT, SMALLINT, INTEGER, REAL, DOUBLE, SHORT_DECIMAL, LONG_DECIMAL,
            VARCHAR, CHAR_3, VARBINARY, DATE, createTimeType(6), createTimestampType(3), TIMESTAMP_MICROS, TIMESTAMP_NANOS,
            TIMESTAMP_TZ_MILLIS, TIMESTAMP_TZ_MICROS, UUID);

    private static final double[] DOUBLES = {Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, -0.0, 0.0, -1.5, 2.5, 1e300};
    private static final String[] STRINGS = {"", "a", "ab", "b", "ünïcödé", "日本", "a longer value that is not inlined anywhere", "z"};
    private static final TimeZoneKey[] ZONES = {TimeZoneKey.UTC_KEY, TimeZoneKey.getTimeZoneKey("America/New_York"), TimeZoneKey.getTimeZoneKey("Asia/Tokyo")};

    private final Random random;
    private long nextId;

    RandomRows(long seed)
    {
        this.random = new Random(seed);
    }

    /** A page of the next {@code rows} rows. */
    Page nextPage(int rows)
    {
        BlockBuilder[] builders = TYPES.stream().map(type -> type.createBlockBuilder(null, rows)).toArray(BlockBuilder[]::new);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(builders[0], nextId++);
            for (int channel = 1; channel < TYPES.size(); channel++) {
                writeNativeValue(TYPES.get(channel), builders[channel], random.nextInt(10) == 0 ? null : value(TYPES.get(channel)));
            }
        }
        return new Page(Arrays.stream(builders).map(BlockBuilder::build).toArray(Block[]::new));
    }

    List<Page> nextPages(int pages, int rowsPerPage)
    {
        List<Page> result = new ArrayList<>();
        for (int i = 0; i < pages; i++) {
            result.add(nextPage(rowsPerPage));
        }
        return result;
    }

    /** Each row of the pages as its columns' native values (null for null), which compare with equals. */
    static List<List<Object>> rows(Iterable<Page> pages, List<Type> types)
    {
        List<List<Object>> rows = new ArrayList<>();
        for (Page page : pages) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                List<Object> row = new ArrayList<>(types.size());
                for (int channel = 0; channel < types.size(); channel++) {
                    row.add(readNativeValue(types.get(channel), page.getBlock(channel), position));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private Object value(Type type)
    {
        int pick = random.nextInt(8);
        return switch (type.getDisplayName()) {
            case "boolean" -> pick % 2 == 0;
            case "tinyint" -> (long) (pick - 4);
            case "smallint" -> (long) (pick * 1000 - 4000);
            case "integer" -> (long) (pick == 0 ? Integer.MIN_VALUE : pick == 7 ? Integer.MAX_VALUE : pick);
            case "real" -> (long) floatToRawIntBits((float) DOUBLES[pick]);
            case "double" -> DOUBLES[pick];
            case "decimal(9,2)" -> (long) (pick == 0 ? -999_999_999 : pick * 125 - 500);
            case "decimal(38,10)" -> pick == 0 ? Int128.valueOf("-99999999999999999999999999999999999999") : Int128.valueOf((pick - 4) * 1_000_000_000_000L + pick);
            case "varchar", "varbinary" -> utf8Slice(STRINGS[pick]);
            // Trino keeps char values without trailing spaces
            case "char(3)" -> Slices.utf8Slice(STRINGS[pick].length() > 3 ? STRINGS[pick].substring(0, 3).stripTrailing() : STRINGS[pick]);
            case "date" -> (long) (pick * 400 - 1000);
            case "time(6)" -> pick * 3_600_000_000_000_000L;
            case "timestamp(3)" -> (pick - 4) * 86_400_000_000L;
            case "timestamp(6)" -> (pick - 4) * 86_400_000_000L + pick;
            case "timestamp(9)" -> new LongTimestamp((pick - 4) * 86_400_000_000L, pick * 1000);
            case "timestamp(3) with time zone" -> packDateTimeWithZone((pick - 4) * 3_600_000L, ZONES[pick % ZONES.length]);
            case "timestamp(6) with time zone" -> LongTimestampWithTimeZone.fromEpochMillisAndFraction((pick - 4) * 3_600_000L, pick * 1_000_000, ZONES[pick % ZONES.length]);
            case "uuid" -> uuid(pick);
            default -> throw new IllegalArgumentException("no values for " + type);
        };
    }

    private static Slice uuid(int pick)
    {
        byte[] bytes = new byte[16];
        Arrays.fill(bytes, (byte) (pick * 37 - 128));
        return Slices.wrappedBuffer(bytes);
    }
}

package io.nsc.protocol.stats;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static io.nsc.protocol.stats.StatsKeys.ofBinaryPrefix;
import static io.nsc.protocol.stats.StatsKeys.ofBoolean;
import static io.nsc.protocol.stats.StatsKeys.ofDecimal128;
import static io.nsc.protocol.stats.StatsKeys.ofDouble;
import static io.nsc.protocol.stats.StatsKeys.ofEpochNanosFloorMicros;
import static io.nsc.protocol.stats.StatsKeys.ofLong;
import static io.nsc.protocol.stats.StatsKeys.ofReal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestStatsKeys
{
    @Test
    void testLongAndBoolean()
    {
        assertThat(ofLong(Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
        assertThat(ofLong(42)).isEqualTo(42);
        assertThat(ofBoolean(false)).isEqualTo(0);
        assertThat(ofBoolean(true)).isEqualTo(1);
    }

    @Test
    void testDoubleOrder()
    {
        double[] ordered = {
                Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -1e300, -2.5, -1.0, -Double.MIN_NORMAL, -Double.MIN_VALUE,
                0.0, Double.MIN_VALUE, Double.MIN_NORMAL, 1.0, 2.5, 1e300, Double.MAX_VALUE, Double.POSITIVE_INFINITY};
        for (int i = 1; i < ordered.length; i++) {
            assertThat(ofDouble(ordered[i - 1])).as("%s < %s", ordered[i - 1], ordered[i]).isLessThan(ofDouble(ordered[i]));
        }
        assertThat(ofDouble(0.0)).isEqualTo(0);
    }

    @Test
    void testToDoubleInvertsOfDouble()
    {
        Random random = new Random(13);
        for (int i = 0; i < 100_000; i++) {
            double value = randomDouble(random);
            if (!Double.isNaN(value)) {
                assertThat(StatsKeys.toDouble(ofDouble(value))).isEqualTo(value == 0 ? 0.0 : value);
            }
        }
        assertThat(StatsKeys.toDouble(ofDouble(Double.NEGATIVE_INFINITY))).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(StatsKeys.toDouble(ofReal(1.25f))).isEqualTo(1.25);
        assertThat(StatsKeys.toDouble(ofDouble(-0.0))).isEqualTo(0.0);
    }

    @Test
    void testNegativeZeroSharesTheKeyOfZero()
    {
        assertThat(ofDouble(-0.0)).isEqualTo(ofDouble(0.0));
        assertThat(ofReal(-0.0f)).isEqualTo(ofReal(0.0f));
        assertThat(ofDouble(-0.0)).isGreaterThan(ofDouble(-Double.MIN_VALUE));
        assertThat(ofDouble(-0.0)).isLessThan(ofDouble(Double.MIN_VALUE));
    }

    @Test
    void testNanIsRefused()
    {
        assertThatThrownBy(() -> ofDouble(Double.NaN)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
        assertThatThrownBy(() -> ofReal(Float.NaN)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
        // a NaN with another payload is still NaN
        assertThatThrownBy(() -> ofDouble(Double.longBitsToDouble(0xFFF8_0000_0000_0001L))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testRandomDoublesKeepTheirOrder()
    {
        Random random = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            double a = randomDouble(random);
            double b = randomDouble(random);
            if (Double.isNaN(a) || Double.isNaN(b)) {
                continue;
            }
            assertThat(Long.signum(Long.compare(ofDouble(a), ofDouble(b)))).as("%s vs %s", a, b).isEqualTo(a < b ? -1 : a > b ? 1 : 0);
        }
    }

    @Test
    void testRealSharesTheDoubleKeySpace()
    {
        Random random = new Random(11);
        for (int i = 0; i < 10_000; i++) {
            float value = Float.intBitsToFloat(random.nextInt());
            if (!Float.isNaN(value)) {
                assertThat(ofReal(value)).isEqualTo(ofDouble(value));
            }
        }
        assertThat(ofReal(1.5f)).isEqualTo(ofDouble(1.5));
        assertThat(ofReal(Float.NEGATIVE_INFINITY)).isEqualTo(ofDouble(Double.NEGATIVE_INFINITY));
    }

    @Test
    void testBinaryPrefix()
    {
        assertThat(ofBinaryPrefix(new byte[0], 0, 0)).isEqualTo(Long.MIN_VALUE);
        assertThat(key("")).isLessThan(key("\0\0\u0001"));
        assertThat(key("a")).isLessThan(key("b"));
        assertThat(key("ab")).isLessThan(key("abc"));
        // zero padding: a string and the same string followed by NUL bytes share a key
        assertThat(key("ab")).isEqualTo(key("ab\0"));
        // only the first 8 bytes count
        assertThat(key("abcdefgh1")).isEqualTo(key("abcdefgh2"));
        assertThat(key("abcdefgh")).isEqualTo(key("abcdefgh"));
        // unsigned: 0x80 and 0xFF sort after 0x7F
        assertThat(ofBinaryPrefix(new byte[] {0x7F}, 0, 1)).isLessThan(ofBinaryPrefix(new byte[] {(byte) 0x80}, 0, 1));
        assertThat(ofBinaryPrefix(new byte[] {(byte) 0x80}, 0, 1)).isLessThan(ofBinaryPrefix(new byte[] {(byte) 0xFF}, 0, 1));
        byte[] max = new byte[12];
        Arrays.fill(max, (byte) 0xFF);
        assertThat(ofBinaryPrefix(max, 0, max.length)).isEqualTo(Long.MAX_VALUE);
        // offset and length select the slice
        byte[] padded = "xxabcyy".getBytes(StandardCharsets.UTF_8);
        assertThat(ofBinaryPrefix(padded, 2, 3)).isEqualTo(key("abc"));
        assertThatThrownBy(() -> ofBinaryPrefix(padded, 5, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void testBinaryPrefixIsMonotone()
    {
        Random random = new Random(3);
        byte[] alphabet = {0, 1, 'a', 'b', 0x7F, (byte) 0x80, (byte) 0xFF};
        for (int i = 0; i < 100_000; i++) {
            byte[] a = randomBytes(random, alphabet);
            byte[] b = randomBytes(random, alphabet);
            if (Arrays.compareUnsigned(a, b) <= 0) {
                assertThat(ofBinaryPrefix(a, 0, a.length)).isLessThanOrEqualTo(ofBinaryPrefix(b, 0, b.length));
            }
        }
    }

    @Test
    void testDecimal128()
    {
        assertThat(decimal(BigInteger.ZERO)).isEqualTo(0);
        assertThat(decimal(BigInteger.valueOf(-1))).isEqualTo(-1);
        assertThat(decimal(BigInteger.valueOf(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(decimal(BigInteger.valueOf(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
        assertThat(decimal(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE))).isEqualTo(Long.MAX_VALUE);
        assertThat(decimal(BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE))).isEqualTo(Long.MIN_VALUE);
        assertThat(decimal(BigInteger.TEN.pow(38).subtract(BigInteger.ONE))).isEqualTo(Long.MAX_VALUE);
        assertThat(decimal(BigInteger.TEN.pow(38).negate().add(BigInteger.ONE))).isEqualTo(Long.MIN_VALUE);
        // the low half alone would read as negative: the high half decides
        assertThat(ofDecimal128(0, -1)).isEqualTo(Long.MAX_VALUE);
        assertThat(ofDecimal128(-1, 0)).isEqualTo(Long.MIN_VALUE);
        assertThat(ofDecimal128(-1, -5)).isEqualTo(-5);
    }

    @Test
    void testEpochNanosFloorToMicros()
    {
        assertThat(ofEpochNanosFloorMicros(0)).isEqualTo(0);
        assertThat(ofEpochNanosFloorMicros(999)).isEqualTo(0);
        assertThat(ofEpochNanosFloorMicros(1_000)).isEqualTo(1);
        assertThat(ofEpochNanosFloorMicros(-1)).isEqualTo(-1);
        assertThat(ofEpochNanosFloorMicros(-1_000)).isEqualTo(-1);
        assertThat(ofEpochNanosFloorMicros(-1_001)).isEqualTo(-2);
        assertThat(ofEpochNanosFloorMicros(Long.MIN_VALUE)).isEqualTo(-9_223_372_036_854_776L);
        assertThat(ofEpochNanosFloorMicros(Long.MAX_VALUE)).isEqualTo(9_223_372_036_854_775L);
    }

    private static long key(String value)
    {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return ofBinaryPrefix(bytes, 0, bytes.length);
    }

    private static long decimal(BigInteger value)
    {
        return ofDecimal128(value.shiftRight(64).longValue(), value.longValue());
    }

    private static double randomDouble(Random random)
    {
        return switch (random.nextInt(4)) {
            case 0 -> Double.longBitsToDouble(random.nextLong());
            case 1 -> random.nextGaussian();
            case 2 -> random.nextInt(5) - 2.0;
            default -> random.nextBoolean() ? -0.0 : 0.0;
        };
    }

    private static byte[] randomBytes(Random random, byte[] alphabet)
    {
        byte[] bytes = new byte[random.nextInt(11)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return bytes;
    }
}

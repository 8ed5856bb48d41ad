package io.nsc.parquet.filter;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Optional;
import java.util.Random;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pattern without {@code _} is matched on the value's UTF-8 bytes; it must answer exactly as
 * matching the value's code points does, for any value, invalid UTF-8 included.
 */
final class TestLikeMatcher
{
    // one-, two-, three- and four-byte code points, and U+FFFD, which stands for invalid input
    private static final String[] PIECES = {"a", "b", "é", "€", "\uD83D\uDE00", "\uFFFD"};
    // bytes that are not UTF-8 on their own: a lone continuation byte, leads without their continuations
    private static final byte[][] INVALID = {{(byte) 0x80}, {(byte) 0xC3}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0}, {(byte) 0xFF}};

    @Test
    void testBytesAnswerAsCodePoints()
    {
        Random random = new Random(20261206);
        for (int round = 0; round < 20_000; round++) {
            String pattern = randomPattern(random);
            LikeMatcher matcher = LikeMatcher.compile(pattern, Optional.empty());
            for (int value = 0; value < 10; value++) {
                Slice bytes = randomValue(random);
                boolean byCodePoints = matcher.matches(bytes.toStringUtf8().codePoints().toArray());
                assertThat(matcher.matches(bytes))
                        .as("'%s' LIKE '%s'", bytes.toStringUtf8(), pattern)
                        .isEqualTo(byCodePoints);
            }
        }
    }

    /** Long values, and segments whose lead byte recurs in them, answer as matching code points does. */
    @Test
    void testLongValuesAnswerAsCodePoints()
    {
        Random random = new Random(20261208);
        String[] letters = {"a", "b", "é", "\u0080", "\u00FF"};
        for (int round = 0; round < 5_000; round++) {
            StringBuilder pattern = new StringBuilder("%");
            for (int segment = random.nextInt(3); segment >= 0; segment--) {
                for (int length = 1 + random.nextInt(3); length > 0; length--) {
                    pattern.append(letters[random.nextInt(letters.length)]);
                }
                pattern.append('%');
            }
            LikeMatcher matcher = LikeMatcher.compile(pattern.toString(), Optional.empty());
            StringBuilder value = new StringBuilder();
            for (int length = random.nextInt(80); length > 0; length--) {
                value.append(letters[random.nextInt(letters.length)]);
            }
            assertThat(matcher.matches(Slices.utf8Slice(value.toString())))
                    .as("'%s' LIKE '%s'", value, pattern)
                    .isEqualTo(matcher.matches(value.codePoints().toArray()));
        }
    }

    /**
     * A value read where a block holds it, between other values' bytes: the match must see
     * only its own bytes, so a segment in the bytes after it (or before) never matches.
     */
    @Test
    void testValueAmongOtherBytesAnswersAsAlone()
    {
        Random random = new Random(20261207);
        for (int round = 0; round < 20_000; round++) {
            String pattern = randomPattern(random);
            LikeMatcher matcher = LikeMatcher.compile(pattern, Optional.empty());
            Slice value = randomValue(random);
            byte[] before = randomValue(random).getBytes();
            byte[] after = pattern.replace("%", "").replace("_", "x").getBytes(UTF_8);
            ByteArrayOutputStream surrounded = new ByteArrayOutputStream();
            surrounded.writeBytes(before);
            surrounded.writeBytes(value.getBytes());
            surrounded.writeBytes(after);
            assertThat(matcher.matches(surrounded.toByteArray(), before.length, value.length()))
                    .as("'%s' LIKE '%s' among other bytes", value.toStringUtf8(), pattern)
                    .isEqualTo(matcher.matches(value));
        }
        LikeMatcher specialRequests = LikeMatcher.compile("%special%requests%", Optional.empty());
        byte[] bytes = "special requests".getBytes(UTF_8);
        assertThat(specialRequests.matches(bytes, 0, bytes.length)).isTrue();
        // "special req" stops before the second segment ends
        assertThat(specialRequests.matches(bytes, 0, 11)).isFalse();
        assertThat(specialRequests.matches(bytes, 1, bytes.length - 1)).isFalse();
    }

    @Test
    void testTpchPatterns()
    {
        LikeMatcher specialRequests = LikeMatcher.compile("%special%requests%", Optional.empty());
        assertThat(specialRequests.matches(Slices.utf8Slice("ly special packages haggle; requests sleep"))).isTrue();
        assertThat(specialRequests.matches(Slices.utf8Slice("requests special"))).isFalse();
        assertThat(specialRequests.matches(Slices.utf8Slice("specialrequests"))).isTrue();
        LikeMatcher promo = LikeMatcher.compile("PROMO%", Optional.empty());
        assertThat(promo.matches(Slices.utf8Slice("PROMO BRUSHED TIN"))).isTrue();
        assertThat(promo.matches(Slices.utf8Slice("ECONOMY PROMO"))).isFalse();
        LikeMatcher brass = LikeMatcher.compile("%BRASS", Optional.empty());
        assertThat(brass.matches(Slices.utf8Slice("LARGE BRUSHED BRASS"))).isTrue();
        assertThat(brass.matches(Slices.utf8Slice("BRASS TIN"))).isFalse();
        // the first and the last segment may not share bytes
        assertThat(LikeMatcher.compile("ab%ba", Optional.empty()).matches(Slices.utf8Slice("aba"))).isFalse();
        assertThat(LikeMatcher.compile("ab%ba", Optional.empty()).matches(Slices.utf8Slice("abba"))).isTrue();
        assertThat(LikeMatcher.compile("é", Optional.empty()).matches(Slices.utf8Slice("é"))).isTrue();
        assertThat(LikeMatcher.compile("é", Optional.empty()).matches(Slices.utf8Slice("e"))).isFalse();
    }

    private static String randomPattern(Random random)
    {
        StringBuilder pattern = new StringBuilder();
        int length = random.nextInt(6);
        for (int i = 0; i < length; i++) {
            int choice = random.nextInt(PIECES.length + 2);
            // '_' rarely, so most patterns take the byte path
            pattern.append(choice < PIECES.length ? PIECES[choice] : (choice == PIECES.length ? "%" : (random.nextInt(4) == 0 ? "_" : "%")));
        }
        return pattern.toString();
    }

    private static Slice randomValue(Random random)
    {
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        int length = random.nextInt(8);
        for (int i = 0; i < length; i++) {
            if (random.nextInt(5) == 0) {
                value.writeBytes(INVALID[random.nextInt(INVALID.length)]);
            }
            else {
                value.writeBytes(PIECES[random.nextInt(PIECES.length)].getBytes(UTF_8));
            }
        }
        return Slices.wrappedBuffer(value.toByteArray());
    }
}

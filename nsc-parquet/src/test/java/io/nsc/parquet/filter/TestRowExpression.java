package io.nsc.parquet.filter;

import io.nsc.parquet.wire.RowExpressionCodec;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestRowExpression
{
    @Test
    void testLikeFollowsSqlPatterns()
    {
        assertThat(like("abc", "abc", null)).isTrue();
        assertThat(like("abc", "a%", null)).isTrue();
        assertThat(like("abc", "%c", null)).isTrue();
        assertThat(like("abc", "a_c", null)).isTrue();
        assertThat(like("abc", "a_", null)).isFalse();
        assertThat(like("", "%", null)).isTrue();
        assertThat(like("", "_", null)).isFalse();
        assertThat(like("a\nb", "a_b", null)).isTrue();
        // regex characters are literal; _ is one code point, even outside the BMP
        assertThat(like("a.c", "a.c", null)).isTrue();
        assertThat(like("abc", "a.c", null)).isFalse();
        assertThat(like("(x)*[y]", "(x)*[%]", null)).isTrue();
        assertThat(like("\uD83D\uDE00", "_", null)).isTrue();
        assertThat(like("é", "_", null)).isTrue();
        // escapes
        assertThat(like("50%", "50!%", '!')).isTrue();
        assertThat(like("500", "50!%", '!')).isFalse();
        assertThat(like("a_b", "a!_b", '!')).isTrue();
        assertThat(like("axb", "a!_b", '!')).isFalse();
        assertThat(like("a!b", "a!!b", '!')).isTrue();
        assertThatThrownBy(() -> RowExpression.Like.create(0, "a!b", Optional.of('!'))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RowExpression.Like.create(0, "ab!", Optional.of('!'))).isInstanceOf(IllegalArgumentException.class);
        assertThat(like(null, "%", null)).isNull();
    }

    @Test
    void testAdversarialLikePatternsMatchWithoutBacktracking()
    {
        // a backtracking regex engine takes exponential time on these; the answers are what count here
        String longAs = "a".repeat(100_000);
        assertThat(like(longAs, "%a%a%a%a%a%b", null)).isFalse();
        assertThat(like(longAs + "b", "%a%a%a%a%a%b", null)).isTrue();
        assertThat(like(longAs, "%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%", null)).isTrue();
        assertThat(like(longAs, "%_%_%_%_%_%_%_%_%_%_%_%c", null)).isFalse();
        assertThat(like(longAs, "a%" + "a".repeat(99_999), null)).isTrue();
        assertThat(like(longAs, "a%" + "a".repeat(100_000), null)).isFalse();
        assertThat(like("ab".repeat(50_000), "%ab%ba%ab%ba%x%", null)).isFalse();
        assertThat(like("ab".repeat(50_000), "%ab%ba%ab%ba%", null)).isTrue();
        // the pattern ends in the literal "x!%"
        assertThat(like("x".repeat(10_000) + "!%", "%x!!!%", '!')).isTrue();
        assertThat(like("x".repeat(10_000) + "!", "%x!!!%", '!')).isFalse();
        assertThat(like("x".repeat(10_000) + "!%", "%x!!!%%", '!')).isTrue();
    }

    @Test
    void testLikeAgreesWithARegularExpressionOnRandomPatterns()
    {
        // the matcher replaced a translation to java.util.regex: on small cases that one is the oracle
        Random random = new Random(17);
        String alphabet = "ab%_!\uD83D\uDE00é";
        int[] codePoints = alphabet.codePoints().toArray();
        for (int round = 0; round < 20_000; round++) {
            String pattern = randomString(random, codePoints, 6);
            String value = randomString(random, codePoints, 8).replace("%", "").replace("_", "");
            Optional<Character> escape = random.nextBoolean() ? Optional.of('!') : Optional.empty();
            Optional<Pattern> regex = toRegex(pattern, escape);
            if (regex.isEmpty()) {
                assertThatThrownBy(() -> RowExpression.Like.create(0, pattern, escape)).isInstanceOf(IllegalArgumentException.class);
                continue;
            }
            assertThat(like(value, pattern, escape.orElse(null)))
                    .as("'%s' LIKE '%s' ESCAPE %s", value, pattern, escape)
                    .isEqualTo(regex.get().matcher(value).matches());
        }
    }

    private static String randomString(Random random, int[] codePoints, int maxLength)
    {
        StringBuilder result = new StringBuilder();
        for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
            result.appendCodePoint(codePoints[random.nextInt(codePoints.length)]);
        }
        return result.toString();
    }

    /** The former implementation, as the oracle: empty when the pattern misuses the escape. */
    private static Optional<Pattern> toRegex(String pattern, Optional<Character> escape)
    {
        StringBuilder regex = new StringBuilder();
        boolean escaping = false;
        for (int offset = 0; offset < pattern.length(); ) {
            int codePoint = pattern.codePointAt(offset);
            offset += Character.charCount(codePoint);
            if (escaping) {
                if (codePoint != '%' && codePoint != '_' && !(escape.isPresent() && codePoint == escape.get())) {
                    return Optional.empty();
                }
                regex.append(Pattern.quote(Character.toString(codePoint)));
                escaping = false;
            }
            else if (escape.isPresent() && codePoint == escape.get()) {
                escaping = true;
            }
            else if (codePoint == '%' || codePoint == '_') {
                regex.append(codePoint == '%' ? ".*" : ".");
            }
            else {
                regex.append(Pattern.quote(Character.toString(codePoint)));
            }
        }
        return escaping ? Optional.empty() : Optional.of(Pattern.compile(regex.toString(), Pattern.DOTALL));
    }

    @Test
    void testThreeValuedLogicAndTheWire()
    {
        // columns: 0 bigint, 1 varchar
        Block numbers = block(BIGINT, 1L, null, 3L, 4L);
        Block strings = block(VARCHAR, utf8Slice("x"), utf8Slice("y"), null, utf8Slice("x"));
        List<Block> blocks = List.of(numbers, strings);
        RowExpression greaterThanTwo = RowExpression.Comparison.of(0, BIGINT, RowExpression.Operator.GREATER_THAN, 2L);
        RowExpression isX = RowExpression.Comparison.of(1, VARCHAR, RowExpression.Operator.EQUAL, utf8Slice("x"));
        RowExpression inWithNull = new RowExpression.In(0, BIGINT, Arrays.asList(1L, null));
        List<RowExpression> expressions = List.of(
                new RowExpression.Or(List.of(greaterThanTwo, isX)),
                new RowExpression.And(List.of(greaterThanTwo, isX)),
                new RowExpression.Not(greaterThanTwo),
                inWithNull,
                new RowExpression.IsNull(1));
        List<List<Boolean>> expected = List.of(
                Arrays.asList(true, null, true, true),
                Arrays.asList(false, false, null, true),
                Arrays.asList(true, null, false, false),
                Arrays.asList(true, null, null, null),
                Arrays.asList(false, false, true, false));
        for (int i = 0; i < expressions.size(); i++) {
            RowExpression expression = expressions.get(i);
            RowExpression received = RowExpressionCodec.decode(RowExpressionCodec.encode(expression), column -> List.<Type>of(BIGINT, VARCHAR).get(column));
            for (int position = 0; position < 4; position++) {
                assertThat(expression.evaluate(blocks::get, position)).as("%s at %s", expression, position).isEqualTo(expected.get(i).get(position));
                assertThat(received.evaluate(blocks::get, position)).as("received %s at %s", expression, position).isEqualTo(expected.get(i).get(position));
            }
        }
        assertThat(new RowExpression.Or(List.of(greaterThanTwo, isX)).remap(column -> column + 5).columns()).containsExactly(5, 6);
        assertThatThrownBy(() -> RowExpressionCodec.decode(RowExpressionCodec.encode(new RowExpression.IsNull(7)), column -> List.<Type>of(BIGINT).get(column)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * LIKE and NOT LIKE over a page test each row's bytes in place, and each value of a
     * dictionary or a run once: they keep exactly the rows row-by-row evaluation keeps, nulls and all.
     */
    @Test
    void testLikeFilterKeepsWhatEvaluationKeeps()
    {
        Random random = new Random(20261207);
        String[] words = {"special", "requests", "pending", "", "spécial", "requests special"};
        for (int round = 0; round < 500; round++) {
            Object[] values = new Object[1 + random.nextInt(40)];
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextInt(6) == 0 ? null : utf8Slice(words[random.nextInt(words.length)] + " " + words[random.nextInt(words.length)]);
            }
            Block plain = block(VARCHAR, values);
            int[] ids = IntStream.range(0, 1 + random.nextInt(60)).map(_ -> random.nextInt(values.length)).toArray();
            Block dictionary = DictionaryBlock.create(ids.length, plain, ids);
            Block run = RunLengthEncodedBlock.create(plain.getSingleValueBlock(random.nextInt(values.length)), 1 + random.nextInt(30));
            RowExpression pattern = RowExpression.Like.create(0, random.nextBoolean() ? "%special%requests%" : "requests%", Optional.empty());
            RowExpression like = random.nextBoolean() ? new RowExpression.Not(pattern) : pattern;
            for (Block block : List.of(plain, dictionary, run)) {
                // a selection of the rows, as earlier filters leave it
                int[] positions = IntStream.range(0, block.getPositionCount()).filter(_ -> random.nextInt(4) != 0).toArray();
                int[] expected = Arrays.stream(positions).filter(position -> Boolean.TRUE.equals(like.evaluate(_ -> block, position))).toArray();
                int kept = like.filter(_ -> block, positions, positions.length);
                assertThat(Arrays.copyOf(positions, kept)).as("%s over %s", like, block).containsExactly(expected);
            }
        }
        // evaluation of one row reads the bytes in place too, and agrees with the plain value
        Block dictionary = DictionaryBlock.create(3, block(VARCHAR, utf8Slice("special requests"), utf8Slice("other"), null), new int[] {2, 1, 0});
        RowExpression like = RowExpression.Like.create(0, "%special%requests%", Optional.empty());
        assertThat(IntStream.range(0, 3).mapToObj(position -> like.evaluate(_ -> dictionary, position)).toList()).containsExactly(null, false, true);
    }

    @Test
    void testFloatingPointComparisonsFollowIeee()
    {
        Block doubles = block(DOUBLE, Double.NaN, -0.0, 0.0, 1.5, null);
        assertThat(compare(doubles, RowExpression.Operator.EQUAL, 0.0)).containsExactly(false, true, true, false, null);
        assertThat(compare(doubles, RowExpression.Operator.NOT_EQUAL, 0.0)).containsExactly(true, false, false, true, null);
        assertThat(compare(doubles, RowExpression.Operator.LESS_THAN, 1.0)).containsExactly(false, true, true, false, null);
        assertThat(compare(doubles, RowExpression.Operator.GREATER_THAN_OR_EQUAL, Double.NaN)).containsExactly(false, false, false, false, null);
    }

    private static List<Boolean> compare(Block block, RowExpression.Operator operator, double value)
    {
        RowExpression comparison = RowExpression.Comparison.of(0, DOUBLE, operator, value);
        return IntStream.range(0, block.getPositionCount()).mapToObj(position -> comparison.evaluate(_ -> block, position)).toList();
    }

    private static Boolean like(String value, String pattern, Character escape)
    {
        RowExpression like = RowExpression.Like.create(0, pattern, Optional.ofNullable(escape));
        Block block = block(VARCHAR, value == null ? null : utf8Slice(value));
        return like.evaluate(_ -> block, 0);
    }

    private static Block block(Type type, Object... values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.length);
        for (Object value : values) {
            writeNativeValue(type, builder, value);
        }
        return builder.build();
    }
}

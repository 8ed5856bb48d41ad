package io.nsc.protocol.predicate;

/**
 * An interval over {@link io.nsc.protocol.stats.StatsKeys stats keys}. An unbounded side ignores
 * its key and inclusive flag (they are normalized to the extreme key and {@code false}).
 * <p>
 * A range may be empty over exact keys yet not over lossy ones: {@code (k, k)} with both ends
 * exclusive matches nothing for a bigint but may match strings between two boundary values
 * that share the prefix key {@code k}. So only {@code low > high} is refused.
 */
public record KeyRange(long low, boolean lowInclusive, boolean lowUnbounded, long high, boolean highInclusive, boolean highUnbounded)
{
    private static final KeyRange ALL = new KeyRange(Long.MIN_VALUE, false, true, Long.MAX_VALUE, false, true);

    public KeyRange
    {
        if (lowUnbounded) {
            low = Long.MIN_VALUE;
            lowInclusive = false;
        }
        if (highUnbounded) {
            high = Long.MAX_VALUE;
            highInclusive = false;
        }
        if (!lowUnbounded && !highUnbounded && low > high) {
            throw new IllegalArgumentException("low key %s is greater than high key %s".formatted(low, high));
        }
    }

    /**
     * Every non-null value, including NaN for real and double.
     */
    public static KeyRange all()
    {
        return ALL;
    }

    public static KeyRange equal(long key)
    {
        return new KeyRange(key, true, false, key, true, false);
    }

    public static KeyRange greaterThan(long key)
    {
        return new KeyRange(key, false, false, Long.MAX_VALUE, false, true);
    }

    public static KeyRange greaterThanOrEqual(long key)
    {
        return new KeyRange(key, true, false, Long.MAX_VALUE, false, true);
    }

    public static KeyRange lessThan(long key)
    {
        return new KeyRange(Long.MIN_VALUE, false, true, key, false, false);
    }

    public static KeyRange lessThanOrEqual(long key)
    {
        return new KeyRange(Long.MIN_VALUE, false, true, key, true, false);
    }

    public static KeyRange range(long low, boolean lowInclusive, long high, boolean highInclusive)
    {
        return new KeyRange(low, lowInclusive, false, high, highInclusive, false);
    }

    public boolean isAll()
    {
        return lowUnbounded && highUnbounded;
    }

    @Override
    public String toString()
    {
        return (lowUnbounded ? "(<min>" : (lowInclusive ? "[" : "(") + low) + ", " + (highUnbounded ? "<max>)" : high + (highInclusive ? "]" : ")"));
    }
}

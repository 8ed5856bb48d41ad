package io.nsc.metadata.catalog;

import io.airlift.units.Duration;

final class Durations
{
    private Durations() {}

    /** "1h" rather than Duration's "1.00h", for messages. */
    static String succinct(Duration duration)
    {
        Duration succinct = duration.convertToMostSuccinctTimeUnit();
        double value = succinct.getValue();
        if (value == Math.rint(value)) {
            return "%d%s".formatted((long) value, Duration.timeUnitToString(succinct.getUnit()));
        }
        return succinct.toString();
    }
}

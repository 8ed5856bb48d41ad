package io.nsc.metadata;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A wall clock that moves only when told, so expiry tests need no sleeps. */
public final class TestingClock
        extends Clock
{
    private final AtomicLong millis;

    public TestingClock(long startMillis)
    {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long millis()
    {
        return millis.get();
    }

    @Override
    public Instant instant()
    {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone()
    {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone)
    {
        throw new UnsupportedOperationException();
    }

    /** Moves the clock; a negative amount steps it back, as NTP may. */
    public void advance(long amount, TimeUnit unit)
    {
        millis.addAndGet(unit.toMillis(amount));
    }
}

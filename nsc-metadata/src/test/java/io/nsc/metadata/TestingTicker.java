package io.nsc.metadata;

import com.google.common.base.Ticker;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told, so liveness tests need no sleeps. */
public final class TestingTicker
        extends Ticker
{
    private final AtomicLong nanos = new AtomicLong();

    @Override
    public long read()
    {
        return nanos.get();
    }

    public void advance(long amount, TimeUnit unit)
    {
        nanos.addAndGet(unit.toNanos(amount));
    }
}

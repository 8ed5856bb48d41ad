package io.nsc.storage.scan;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call's steps run on several scan threads, each with its own CPU count: the clock must add
 * each step's CPU once, and none of what another thread did.
 */
final class TestThreadCpuClock
{
    // each thread's CPU count, as the test sets it
    private final Map<Thread, Long> threadCpu = new ConcurrentHashMap<>();
    private final ThreadCpuClock clock = new ThreadCpuClock(() -> threadCpu.getOrDefault(Thread.currentThread(), 0L));

    @Test
    void testChargesWhatTheStepUsedOnce()
    {
        use(100);
        clock.mark();
        use(40);
        clock.charge();
        assertThat(clock.nanos()).isEqualTo(40);

        // charged again (the summary, then the release, then the step's end): only what came since
        clock.charge();
        assertThat(clock.nanos()).isEqualTo(40);
        use(5);
        clock.charge();
        assertThat(clock.nanos()).isEqualTo(45);
    }

    @Test
    void testAStepOnAnotherThreadDoesNotDoubleCount()
            throws InterruptedException
    {
        use(1_000);
        clock.mark();
        use(30);
        clock.charge();

        // a cancellation on another thread: that thread did none of the call's work
        onAnotherThread(() -> {
            use(500);
            clock.charge();
        });
        assertThat(clock.nanos()).isEqualTo(30);

        // the next drain runs on another thread, which marks where its own count stood
        onAnotherThread(() -> {
            use(7_000);
            clock.mark();
            use(20);
            clock.charge();
        });
        assertThat(clock.nanos()).isEqualTo(50);

        // and this thread's CPU since, spent on other calls, is not this call's
        use(900);
        clock.charge();
        assertThat(clock.nanos()).isEqualTo(50);
    }

    @Test
    void testNothingChargedBeforeAMark()
    {
        use(100);
        clock.charge();
        assertThat(clock.nanos()).isZero();
    }

    @Test
    void testTheThreadsOwnClock()
    {
        ThreadCpuClock real = new ThreadCpuClock();
        real.mark();
        long sum = 0;
        for (int i = 0; i < 1_000_000; i++) {
            sum += i % 7;
        }
        real.charge();
        assertThat(sum).isPositive();
        assertThat(real.nanos()).isNotNegative();
    }

    private void use(long nanos)
    {
        threadCpu.merge(Thread.currentThread(), nanos, Long::sum);
    }

    private static void onAnotherThread(Runnable step)
            throws InterruptedException
    {
        // joined: what the step wrote is seen here, as the call's sequential steps see each other's
        Thread thread = Thread.ofPlatform().start(step);
        thread.join();
    }
}

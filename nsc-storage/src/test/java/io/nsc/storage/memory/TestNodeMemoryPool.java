package io.nsc.storage.memory;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

import static com.google.common.util.concurrent.MoreExecutors.directExecutor;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestNodeMemoryPool
{
    private static final Duration LONG_WAIT = new Duration(10, MINUTES);

    @Test
    void testAdmitsAtOnceWhatFits()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 10, LONG_WAIT)) {
            assertThat(pool.admit(60)).isDone();
            assertThat(pool.getReservedBytes()).isEqualTo(60);
            assertThat(pool.tryReserve(40)).isTrue();
            assertThat(pool.tryReserve(1)).isFalse();
            assertThat(pool.getRefusedGrowth().getTotalCount()).isEqualTo(1);
            pool.free(100);
            assertThat(pool.getReservedBytes()).isZero();
            assertThat(pool.getPeakReservedBytes()).isEqualTo(100);
            assertThat(pool.getAdmitted().getTotalCount()).isEqualTo(1);
        }
    }

    @Test
    void testWaitersAreAdmittedInTurnAsMemoryIsFreed()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 10, LONG_WAIT)) {
            assertThat(pool.admit(80)).isDone();
            ListenableFuture<Void> first = pool.admit(50);
            ListenableFuture<Void> second = pool.admit(10);
            // the second fits, but waits behind the first: no request jumps the queue
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();
            assertThat(pool.getQueuedRequests()).isEqualTo(2);
            assertThat(pool.getQueued().getTotalCount()).isEqualTo(2);

            pool.free(80);
            assertThat(first).isDone();
            assertThat(second).isDone();
            assertThat(pool.getQueuedRequests()).isZero();
            assertThat(pool.getReservedBytes()).isEqualTo(60);
            pool.free(60);
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testRefusesWhenTheQueueIsFull()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 1, LONG_WAIT)) {
            assertThat(pool.admit(100)).isDone();
            ListenableFuture<Void> waiting = pool.admit(1);
            ListenableFuture<Void> refused = pool.admit(1);
            assertThat(waiting).isNotDone();
            assertRefused(refused, "1 requests already wait for memory");
            assertThat(pool.getRefusedQueueFull().getTotalCount()).isEqualTo(1);
            waiting.cancel(false);
            pool.free(100);
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testRefusesMoreThanThePool()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 10, LONG_WAIT)) {
            pool.tryReserve(1);
            assertRefused(pool.admit(101), "more than the node's memory pool");
            pool.free(1);
        }
    }

    @Test
    void testRefusesAfterTheLongestWait()
            throws InterruptedException
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 10, new Duration(1, MILLISECONDS))) {
            assertThat(pool.admit(100)).isDone();
            ListenableFuture<Void> waiting = pool.admit(1);
            assertRefused(waiting, "waited 1.00ms for memory");
            assertThat(pool.getRefusedTimedOut().getTotalCount()).isEqualTo(1);
            assertThat(pool.getQueuedRequests()).isZero();
            // nothing was taken for it
            pool.free(100);
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testWithdrawnWaiterTakesNothing()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 10, LONG_WAIT)) {
            assertThat(pool.admit(100)).isDone();
            ListenableFuture<Void> withdrawn = pool.admit(70);
            ListenableFuture<Void> next = pool.admit(40);
            withdrawn.cancel(false);
            assertThat(pool.getQueuedRequests()).isEqualTo(1);
            pool.free(100);
            assertThat(next).isDone();
            assertThat(pool.getReservedBytes()).isEqualTo(40);
            pool.free(40);
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testReservationGrowsInStepsAndGivesEverythingBack()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(1000), 10, LONG_WAIT)) {
            PoolReservation reservation = new PoolReservation(pool, 100);
            assertThat(pool.admit(reservation.initialBytes())).isDone();
            reservation.admitted();
            MemoryBudget budget = new MemoryBudget("scan", 600, reservation);

            budget.reserve(50, "a");
            assertThat(pool.getReservedBytes()).isEqualTo(100);
            budget.reserve(120, "b");
            // 170 used: two steps
            assertThat(pool.getReservedBytes()).isEqualTo(200);
            budget.reserve(300, "c");
            assertThat(pool.getReservedBytes()).isEqualTo(500);
            budget.release(400);
            // 70 used: a step for it and a step of slack
            assertThat(pool.getReservedBytes()).isEqualTo(200);

            // the scan's own limit says no before the pool is asked
            assertThatThrownBy(() -> budget.reserve(600, "d"))
                    .isInstanceOf(MemoryLimitExceededException.class)
                    .isNotInstanceOf(PoolExhaustedException.class);
            assertThat(pool.getReservedBytes()).isEqualTo(200);

            reservation.close();
            assertThat(pool.getReservedBytes()).isZero();
            reservation.close();
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testGrowthThePoolCannotGiveFailsAndLeavesTheBudgetAsItWas()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(300), 10, LONG_WAIT)) {
            PoolReservation first = admitted(pool, 100);
            PoolReservation second = admitted(pool, 100);
            MemoryBudget budget = new MemoryBudget("scan", 10_000, first);
            budget.reserve(200, "groups");
            assertThat(pool.getReservedBytes()).isEqualTo(300);

            assertThatThrownBy(() -> budget.reserve(1, "more groups"))
                    .isInstanceOf(PoolExhaustedException.class)
                    .hasMessageContaining("memory pool of 300B is exhausted")
                    .hasMessageContaining("more groups");
            assertThat(budget.reservedBytes()).isEqualTo(200);
            assertThat(pool.getRefusedGrowth().getTotalCount()).isEqualTo(1);

            first.close();
            second.close();
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testRequestEndedWhileWaitingGivesItsAdmissionBack()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(100), 10, LONG_WAIT)) {
            PoolReservation holder = admitted(pool, 100);
            PoolReservation waiting = new PoolReservation(pool, 100);
            ListenableFuture<Void> admission = pool.admit(waiting.initialBytes());
            // cancelled too late to withdraw: the admission came, then the request ended before it ran
            holder.close();
            assertThat(admission).isDone();
            waiting.close();
            waiting.admitted();
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    @Test
    void testNoLeaksUnderManyRequestsCancelledOrEnded()
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(1000), 100, LONG_WAIT)) {
            List<PoolReservation> running = new ArrayList<>();
            List<ListenableFuture<Void>> waiting = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                PoolReservation reservation = new PoolReservation(pool, 100);
                ListenableFuture<Void> admission = pool.admit(reservation.initialBytes());
                Futures.addCallback(admission, new FutureCallback<>()
                {
                    @Override
                    public void onSuccess(Void result)
                    {
                        reservation.admitted();
                    }

                    @Override
                    public void onFailure(Throwable failure) {}
                }, directExecutor());
                running.add(reservation);
                waiting.add(admission);
            }
            assertThat(pool.getQueuedRequests()).isEqualTo(40);
            // every other one cancelled while it waits, the rest end in turn
            for (int i = 0; i < 50; i += 2) {
                if (waiting.get(i).cancel(false)) {
                    running.get(i).close();
                }
            }
            running.forEach(PoolReservation::close);
            assertThat(pool.getQueuedRequests()).isZero();
            assertThat(pool.getReservedBytes()).isZero();
        }
    }

    private static PoolReservation admitted(NodeMemoryPool pool, long bytes)
    {
        PoolReservation reservation = new PoolReservation(pool, bytes);
        assertThat(pool.admit(reservation.initialBytes())).isDone();
        reservation.admitted();
        return reservation;
    }

    private static void assertRefused(ListenableFuture<Void> admission, String reason)
    {
        assertThatThrownBy(admission::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(PoolExhaustedException.class)
                .hasMessageContaining(reason)
                .hasMessageContaining("retry in");
    }
}

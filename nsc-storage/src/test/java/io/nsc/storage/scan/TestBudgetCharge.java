package io.nsc.storage.scan;

import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A holder that grows and shrinks is held in the budget at its last size, never twice. */
final class TestBudgetCharge
{
    @Test
    void testFollowsTheHolder()
    {
        MemoryBudget memory = new MemoryBudget("Scan of file x", 100);
        BudgetCharge batch = new BudgetCharge(memory, "a batch of pages");
        BudgetCharge reader = new BudgetCharge(memory, "the Parquet reader's buffers");

        batch.chargeTo(30);
        reader.chargeTo(50);
        batch.chargeTo(40);
        assertThat(memory.reservedBytes()).isEqualTo(90);

        reader.chargeTo(10);
        assertThat(memory.reservedBytes()).isEqualTo(50);
        batch.chargeTo(0);
        assertThat(batch.reservedBytes()).isZero();
        assertThat(memory.reservedBytes()).isEqualTo(10);
        assertThat(memory.peakBytes()).isEqualTo(90);
    }

    @Test
    void testPastTheBudgetTheChargeStaysAsItWas()
    {
        MemoryBudget memory = new MemoryBudget("Scan of file x", 100);
        BudgetCharge batch = new BudgetCharge(memory, "a batch of pages");
        batch.chargeTo(60);

        assertThatThrownBy(() -> batch.chargeTo(101))
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessageContaining("Scan of file x")
                .hasMessageContaining("a batch of pages");
        assertThat(batch.reservedBytes()).isEqualTo(60);
        assertThat(memory.reservedBytes()).isEqualTo(60);

        // what it held still goes back
        batch.chargeTo(0);
        assertThat(memory.reservedBytes()).isZero();
    }
}

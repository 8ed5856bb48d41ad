package io.nsc.protocol.stats;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.stream.LongStream;

import static io.nsc.protocol.stats.SplitBlockBloomFilter.BYTES_PER_BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

final class TestSplitBlockBloomFilter
{
    @Test
    void testEmptyFilterContainsNothing()
    {
        byte[] filter = new byte[BYTES_PER_BLOCK * 4];
        assertThat(LongStream.range(0, 1000).anyMatch(hash -> SplitBlockBloomFilter.mightContain(filter, 0, filter.length, hash * 0x9E3779B97F4A7C15L))).isFalse();
        assertThat(SplitBlockBloomFilter.falsePositiveRate(filter)).isZero();
        // nothing to lose: folds down to one block
        assertThat(SplitBlockBloomFilter.fold(filter, 0.01)).hasSize(BYTES_PER_BLOCK);
    }

    @Test
    void testFoldingNeverLosesAValue()
    {
        Random random = new Random(42);
        for (int round = 0; round < 50; round++) {
            int blocks = 1 << random.nextInt(12);
            byte[] filter = new byte[blocks * BYTES_PER_BLOCK];
            long[] inserted = random.longs(random.nextInt(5_000)).toArray();
            for (long hash : inserted) {
                SplitBlockBloomFilter.insert(filter, hash);
            }
            double target = random.nextDouble() * 0.1;
            byte[] folded = SplitBlockBloomFilter.fold(filter, target);
            assertThat(folded.length).isLessThanOrEqualTo(filter.length);
            for (long hash : inserted) {
                assertThat(SplitBlockBloomFilter.mightContain(folded, 0, folded.length, hash)).isTrue();
            }
            if (folded.length < filter.length) {
                assertThat(SplitBlockBloomFilter.falsePositiveRate(folded)).isLessThanOrEqualTo(target);
            }
        }
    }

    @Test
    void testFoldedFilterIsTheOneBuiltAtHalfTheSize()
    {
        Random random = new Random(7);
        byte[] large = new byte[64 * BYTES_PER_BLOCK];
        byte[] small = new byte[32 * BYTES_PER_BLOCK];
        for (long hash : random.longs(300).toArray()) {
            SplitBlockBloomFilter.insert(large, hash);
            SplitBlockBloomFilter.insert(small, hash);
        }
        // a value's block at half the size is its block at full size halved: OR-ing pairs of blocks
        // gives exactly the filter a writer builds at half the size
        assertThat(SplitBlockBloomFilter.halve(large)).isEqualTo(small);
    }

    @Test
    void testEstimatedRateMatchesMeasuredRate()
    {
        Random random = new Random(1);
        byte[] filter = new byte[256 * BYTES_PER_BLOCK];
        for (long hash : random.longs(2_000).toArray()) {
            SplitBlockBloomFilter.insert(filter, hash);
        }
        int trials = 200_000;
        long hits = random.longs(trials).filter(hash -> SplitBlockBloomFilter.mightContain(filter, 0, filter.length, hash)).count();
        assertThat((double) hits / trials).isCloseTo(SplitBlockBloomFilter.falsePositiveRate(filter), offset(0.002));
    }

    @Test
    void testOffsetAndBounds()
    {
        byte[] filter = new byte[2 * BYTES_PER_BLOCK];
        SplitBlockBloomFilter.insert(filter, 12345);
        byte[] embedded = new byte[filter.length + 10];
        System.arraycopy(filter, 0, embedded, 7, filter.length);
        assertThat(SplitBlockBloomFilter.mightContain(embedded, 7, filter.length, 12345)).isTrue();
        assertThatThrownBy(() -> SplitBlockBloomFilter.mightContain(embedded, 11, filter.length, 12345))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> SplitBlockBloomFilter.fold(new byte[48], 0.01))
                .hasMessageContaining("not a whole number of 32-byte blocks");
        assertThat(SplitBlockBloomFilter.isValidLength(0)).isFalse();
        assertThat(SplitBlockBloomFilter.isValidLength(96)).isTrue();
    }
}

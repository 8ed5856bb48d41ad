package io.nsc.parquet.aggregate;

import io.nsc.parquet.types.NativeValues;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Int128Math;
import io.trino.spi.type.Type;

import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.lang.Double.longBitsToDouble;

/**
 * The state of one aggregate for one group: fed input rows (at the storage node) or partial
 * states (at the worker that merges), written out as a partial state or as the final value.
 */
abstract sealed class Accumulator
{
    static Accumulator create(AggregateSpec spec)
    {
        return switch (spec.kind()) {
            case COUNT_ALL -> new Count(true);
            case COUNT -> new Count(false);
            case SUM -> spec.resultType() == DOUBLE ? new DoubleSum(spec.inputType().orElseThrow())
                    : spec.resultType() == BIGINT ? new LongSum(spec.inputType().orElseThrow())
                    : new DecimalSum((DecimalType) spec.inputType().orElseThrow(), spec.resultType());
            case MIN -> new Extreme(spec.inputType().orElseThrow(), -1);
            case MAX -> new Extreme(spec.inputType().orElseThrow(), 1);
            case AVG -> new Average(spec.inputType().orElseThrow());
        };
    }

    /** Adds the input row at {@code position} (block is null for COUNT_ALL). */
    abstract void addInput(Block input, int position);

    /** Adds the input rows from {@code start} to {@code end}, in order, as {@link #addInput} would one by one. */
    void addInputs(Block input, int start, int end)
    {
        for (int position = start; position < end; position++) {
            addInput(input, position);
        }
    }

    /**
     * Adds the input rows from {@code start} to {@code end}, each to its own group's accumulator
     * (this aggregate's is {@code rowGroups[position][aggregate]}, all of this one's class), in
     * order, as {@link #addInput} would one by one; this one is the first row's.
     */
    void addGroupedInputs(Block input, Accumulator[][] rowGroups, int aggregate, int start, int end)
    {
        for (int position = start; position < end; position++) {
            rowGroups[position][aggregate].addInput(input, position);
        }
    }

    /** Merges the partial state at {@code position} of the state columns starting at {@code first}. */
    abstract void addPartial(Block[] states, int first, int position);

    abstract void writePartial(BlockBuilder[] builders, int first);

    abstract void writeFinal(BlockBuilder builder);

    static final class Count
            extends SingleValue
    {
        private final boolean all;
        private long count;

        Count(boolean all)
        {
            this.all = all;
        }

        @Override
        void addInput(Block input, int position)
        {
            if (all || !input.isNull(position)) {
                count++;
            }
        }

        @Override
        void addInputs(Block input, int start, int end)
        {
            if (all || !input.mayHaveNull()) {
                count += end - start;
                return;
            }
            super.addInputs(input, start, end);
        }

        @Override
        void addGroupedInputs(Block input, Accumulator[][] rowGroups, int aggregate, int start, int end)
        {
            if (!all && input.mayHaveNull()) {
                super.addGroupedInputs(input, rowGroups, aggregate, start, end);
                return;
            }
            for (int position = start; position < end; position++) {
                ((Count) rowGroups[position][aggregate]).count++;
            }
        }

        @Override
        void addState(Block state, int position)
        {
            count += BIGINT.getLong(state, position);
        }

        @Override
        void writeFinal(BlockBuilder builder)
        {
            BIGINT.writeLong(builder, count);
        }
    }

    /** A state that is one value of the result's type: partial and final states are written alike. */
    abstract static sealed class SingleValue
            extends Accumulator
            permits Count, LongSum, DoubleSum, DecimalSum, Extreme
    {
        /** Merges the partial state at {@code position} of its column. */
        abstract void addState(Block state, int position);

        @Override
        final void addPartial(Block[] states, int first, int position)
        {
            addState(states[first], position);
        }

        @Override
        final void writePartial(BlockBuilder[] builders, int first)
        {
            writeFinal(builders[first]);
        }
    }

    static final class LongSum
            extends SingleValue
    {
        private final Type inputType;
        private long sum;
        private boolean any;

        LongSum(Type inputType)
        {
            this.inputType = inputType;
        }

        @Override
        void addInput(Block input, int position)
        {
            if (!input.isNull(position)) {
                add(inputType.getLong(input, position));
            }
        }

        @Override
        void addState(Block state, int position)
        {
            if (!state.isNull(position)) {
                add(BIGINT.getLong(state, position));
            }
        }

        private void add(long value)
        {
            try {
                sum = Math.addExact(sum, value);
            }
            catch (ArithmeticException e) {
                // what Trino's own sum(bigint) reports
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "bigint addition overflow: %s + %s".formatted(sum, value), e);
            }
            any = true;
        }

        @Override
        void writeFinal(BlockBuilder builder)
        {
            writeNativeValue(BIGINT, builder, any ? sum : null);
        }
    }

    static final class DoubleSum
            extends SingleValue
    {
        private double sum;
        private boolean any;

        DoubleSum(Type inputType)
        {
            if (inputType != DOUBLE) {
                throw new IllegalArgumentException("double sum of " + inputType);
            }
        }

        @Override
        void addInput(Block input, int position)
        {
            if (!input.isNull(position)) {
                sum += DOUBLE.getDouble(input, position);
                any = true;
            }
        }

        @Override
        void addInputs(Block input, int start, int end)
        {
            if (!(input instanceof LongArrayBlock values) || values.mayHaveNull() || start == end) {
                super.addInputs(input, start, end);
                return;
            }
            // the same additions in the same order as a row at a time, without a call per row
            double total = sum;
            for (int position = start; position < end; position++) {
                total += longBitsToDouble(values.getLong(position));
            }
            sum = total;
            any = true;
        }

        @Override
        void addGroupedInputs(Block input, Accumulator[][] rowGroups, int aggregate, int start, int end)
        {
            // a filtered page's rows pick theirs from the decoded values by id
            if (input instanceof DictionaryBlock ids && ids.getDictionary() instanceof LongArrayBlock values && !values.mayHaveNull()) {
                for (int position = start; position < end; position++) {
                    DoubleSum group = (DoubleSum) rowGroups[position][aggregate];
                    group.sum += longBitsToDouble(values.getLong(ids.getId(position)));
                    group.any = true;
                }
                return;
            }
            if (!(input instanceof LongArrayBlock values) || values.mayHaveNull()) {
                super.addGroupedInputs(input, rowGroups, aggregate, start, end);
                return;
            }
            for (int position = start; position < end; position++) {
                DoubleSum group = (DoubleSum) rowGroups[position][aggregate];
                group.sum += longBitsToDouble(values.getLong(position));
                group.any = true;
            }
        }

        @Override
        void addState(Block state, int position)
        {
            addInput(state, position);
        }

        @Override
        void writeFinal(BlockBuilder builder)
        {
            writeNativeValue(DOUBLE, builder, any ? sum : null);
        }
    }

    static final class DecimalSum
            extends SingleValue
    {
        private final DecimalType inputType;
        private final Type resultType;
        private Int128 sum = Int128.ZERO;
        private long overflow;
        private boolean any;

        DecimalSum(DecimalType inputType, Type resultType)
        {
            this.inputType = inputType;
            this.resultType = resultType;
        }

        @Override
        void addInput(Block input, int position)
        {
            if (!input.isNull(position)) {
                Object value = readNativeValue(inputType, input, position);
                add(value instanceof Long unscaled ? Int128.valueOf(unscaled) : (Int128) value);
            }
        }

        @Override
        void addState(Block state, int position)
        {
            if (!state.isNull(position)) {
                add((Int128) readNativeValue(resultType, state, position));
            }
        }

        // Like Trino's decimal sum, a running total may leave decimal(38)'s range on the way (and
        // even wrap 128 bits, counted in overflow); only the total written out must fit.
        private void add(Int128 value)
        {
            long[] result = new long[2];
            overflow += Int128Math.addWithOverflow(sum.getHigh(), sum.getLow(), value.getHigh(), value.getLow(), result, 0);
            sum = Int128.valueOf(result[0], result[1]);
            any = true;
        }

        @Override
        void writeFinal(BlockBuilder builder)
        {
            if (any && (overflow != 0 || Decimals.overflows(sum))) {
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow");
            }
            writeNativeValue(resultType, builder, any ? sum : null);
        }
    }

    static final class Extreme
            extends SingleValue
    {
        private final Type type;
        // -1 keeps the smallest value, 1 the largest
        private final int sign;
        private Object value;

        Extreme(Type type, int sign)
        {
            this.type = type;
            this.sign = sign;
        }

        @Override
        void addInput(Block input, int position)
        {
            if (!input.isNull(position)) {
                Object candidate = readNativeValue(type, input, position);
                if (value == null || Integer.signum(NativeValues.compare(candidate, value)) == sign) {
                    value = candidate;
                }
            }
        }

        @Override
        void addState(Block state, int position)
        {
            addInput(state, position);
        }

        @Override
        void writeFinal(BlockBuilder builder)
        {
            writeNativeValue(type, builder, value);
        }
    }

    static final class Average
            extends Accumulator
    {
        private final Type inputType;
        private double sum;
        private long count;

        Average(Type inputType)
        {
            this.inputType = inputType;
        }

        @Override
        void addInput(Block input, int position)
        {
            if (!input.isNull(position)) {
                sum += inputType == DOUBLE ? DOUBLE.getDouble(input, position) : inputType.getLong(input, position);
                count++;
            }
        }

        @Override
        void addGroupedInputs(Block input, Accumulator[][] rowGroups, int aggregate, int start, int end)
        {
            // a filtered page's rows pick theirs from the decoded values by id
            if (inputType == DOUBLE && input instanceof DictionaryBlock ids && ids.getDictionary() instanceof LongArrayBlock values && !values.mayHaveNull()) {
                for (int position = start; position < end; position++) {
                    Average group = (Average) rowGroups[position][aggregate];
                    group.sum += longBitsToDouble(values.getLong(ids.getId(position)));
                    group.count++;
                }
                return;
            }
            if (inputType != DOUBLE || !(input instanceof LongArrayBlock values) || values.mayHaveNull()) {
                super.addGroupedInputs(input, rowGroups, aggregate, start, end);
                return;
            }
            for (int position = start; position < end; position++) {
                Average group = (Average) rowGroups[position][aggregate];
                group.sum += longBitsToDouble(values.getLong(position));
                group.count++;
            }
        }

        @Override
        void addPartial(Block[] states, int first, int position)
        {
            sum += DOUBLE.getDouble(states[first], position);
            count += BIGINT.getLong(states[first + 1], position);
        }

        @Override
        void writePartial(BlockBuilder[] builders, int first)
        {
            DOUBLE.writeDouble(builders[first], sum);
            BIGINT.writeLong(builders[first + 1], count);
        }

        @Override
        void writeFinal(BlockBuilder builder)
        {
            if (count == 0) {
                builder.appendNull();
            }
            else {
                DOUBLE.writeDouble(builder, sum / count);
            }
        }
    }
}

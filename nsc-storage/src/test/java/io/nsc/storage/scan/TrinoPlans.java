package io.nsc.storage.scan;

import io.nsc.storage.scan.TrinoScanPath.Aggregate;
import io.nsc.storage.scan.TrinoScanPath.Plan;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import io.trino.sql.relational.RowExpression;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;

import static io.airlift.slice.Slices.utf8Slice;
import static io.nsc.storage.scan.TrinoScanPath.and;
import static io.nsc.storage.scan.TrinoScanPath.arithmetic;
import static io.nsc.storage.scan.TrinoScanPath.between;
import static io.nsc.storage.scan.TrinoScanPath.compare;
import static io.nsc.storage.scan.TrinoScanPath.in;
import static io.nsc.storage.scan.TrinoScanPath.notLike;
import static io.trino.spi.function.OperatorType.ADD;
import static io.trino.spi.function.OperatorType.EQUAL;
import static io.trino.spi.function.OperatorType.LESS_THAN;
import static io.trino.spi.function.OperatorType.LESS_THAN_OR_EQUAL;
import static io.trino.spi.function.OperatorType.MULTIPLY;
import static io.trino.spi.function.OperatorType.SUBTRACT;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static io.trino.sql.relational.Expressions.constant;
import static io.trino.sql.relational.Expressions.field;

/**
 * The plans Trino runs for BenchmarkStorageScan's lineitem scans: the same columns, filter,
 * computed values and aggregation as each storage scan, as Trino's planner would hand them to
 * its operators (comparisons of a column with a constant, BETWEEN, IN, AND; a partial
 * aggregation over the projected channels).
 */
final class TrinoPlans
{
    static final Type SHIPINSTRUCT = createVarcharType(25);
    static final Type SHIPMODE = createVarcharType(10);
    static final Type COMMENT = createVarcharType(44);
    // TPC-H Q13's pattern (on o_comment there, NOT LIKE)
    static final String SPECIAL_REQUESTS = "%special%requests%";
    private static final Type FLAG = createVarcharType(1);
    // Q8's dynamic filter: 1,333 part keys (sf1 has 200,000 parts, 1/150 of them of one type), fixed by the seed
    static final List<Long> Q8_PART_KEYS = partKeys();

    private TrinoPlans() {}

    static Plan filterSum()
    {
        return new Plan(List.of(1, 5), List.of(BIGINT, DOUBLE), partkeyDomain(),
                Optional.of(compare(LESS_THAN_OR_EQUAL, field(0, BIGINT), constant(2000L, BIGINT))),
                List.of(field(1, DOUBLE)), List.of(), List.of(sum(0)));
    }

    static Plan filterRows()
    {
        return new Plan(List.of(1, 0, 5), List.of(BIGINT, BIGINT, DOUBLE), partkeyDomain(),
                Optional.of(compare(LESS_THAN_OR_EQUAL, field(0, BIGINT), constant(2000L, BIGINT))),
                List.of(field(1, BIGINT), field(2, DOUBLE)), List.of(), List.of());
    }

    static Plan fullSum()
    {
        return new Plan(List.of(5), List.of(DOUBLE), TupleDomain.all(), Optional.empty(), List.of(field(0, DOUBLE)), List.of(), List.of(sum(0)));
    }

    static Plan q1()
    {
        // channels: 0 returnflag, 1 linestatus, 2 quantity, 3 extendedprice, 4 discount, 5 tax, 6 shipdate
        long shipdate = LocalDate.parse("1998-09-02").toEpochDay();
        RowExpression discounted = arithmetic(MULTIPLY, field(3, DOUBLE), arithmetic(SUBTRACT, constant(1.0, DOUBLE), field(4, DOUBLE)));
        RowExpression charged = arithmetic(MULTIPLY, discounted, arithmetic(ADD, constant(1.0, DOUBLE), field(5, DOUBLE)));
        return new Plan(List.of(8, 9, 4, 5, 6, 7, 10), List.of(FLAG, FLAG, DOUBLE, DOUBLE, DOUBLE, DOUBLE, DATE),
                TupleDomain.withColumnDomains(Map.of(6, Domain.create(ValueSet.ofRanges(Range.lessThanOrEqual(DATE, shipdate)), false))),
                Optional.of(compare(LESS_THAN_OR_EQUAL, field(6, DATE), constant(shipdate, DATE))),
                // projected: 0 returnflag, 1 linestatus, 2 quantity, 3 extendedprice, 4 discounted, 5 charged, 6 discount
                List.of(field(0, FLAG), field(1, FLAG), field(2, DOUBLE), field(3, DOUBLE), discounted, charged, field(4, DOUBLE)),
                List.of(0, 1),
                List.of(sum(2), sum(3), sum(4), sum(5), avg(2), avg(3), avg(6), new Aggregate("count", List.of(), List.of())));
    }

    static Plan q6()
    {
        // channels: 0 shipdate, 1 discount, 2 quantity, 3 extendedprice
        long from = LocalDate.parse("1994-01-01").toEpochDay();
        long to = LocalDate.parse("1995-01-01").toEpochDay();
        return new Plan(List.of(10, 6, 4, 5), List.of(DATE, DOUBLE, DOUBLE, DOUBLE),
                TupleDomain.withColumnDomains(Map.of(
                        0, Domain.create(ValueSet.ofRanges(Range.range(DATE, from, true, to, false)), false),
                        1, Domain.create(ValueSet.ofRanges(Range.range(DOUBLE, 0.05, true, 0.07, true)), false),
                        2, Domain.create(ValueSet.ofRanges(Range.lessThan(DOUBLE, 24.0)), false))),
                Optional.of(and(
                        compare(LESS_THAN_OR_EQUAL, constant(from, DATE), field(0, DATE)),
                        compare(LESS_THAN, field(0, DATE), constant(to, DATE)),
                        between(field(1, DOUBLE), constant(0.05, DOUBLE), constant(0.07, DOUBLE)),
                        compare(LESS_THAN, field(2, DOUBLE), constant(24.0, DOUBLE)))),
                List.of(arithmetic(MULTIPLY, field(3, DOUBLE), field(1, DOUBLE))),
                List.of(),
                List.of(sum(0)));
    }

    static Plan q8()
    {
        // channels: 0 partkey, 1 orderkey, 2 suppkey, 3 extendedprice, 4 discount
        return new Plan(List.of(1, 0, 2, 5, 6), List.of(BIGINT, BIGINT, BIGINT, DOUBLE, DOUBLE),
                TupleDomain.withColumnDomains(Map.of(0, Domain.create(ValueSet.copyOf(BIGINT, Q8_PART_KEYS), false))),
                Optional.of(in(field(0, BIGINT), Q8_PART_KEYS.stream().map(key -> (RowExpression) constant(key, BIGINT)).toList())),
                List.of(field(1, BIGINT), field(2, BIGINT), arithmetic(MULTIPLY, field(3, DOUBLE), arithmetic(SUBTRACT, constant(1.0, DOUBLE), field(4, DOUBLE)))),
                List.of(),
                List.of());
    }

    static Plan q19()
    {
        // channels: 0 quantity, 1 shipinstruct, 2 shipmode, 3 partkey, 4 extendedprice, 5 discount
        return new Plan(List.of(4, 13, 14, 1, 5, 6), List.of(DOUBLE, SHIPINSTRUCT, SHIPMODE, BIGINT, DOUBLE, DOUBLE),
                TupleDomain.withColumnDomains(Map.of(
                        0, Domain.create(ValueSet.ofRanges(Range.range(DOUBLE, 1.0, true, 30.0, true)), false),
                        1, Domain.singleValue(SHIPINSTRUCT, utf8Slice("DELIVER IN PERSON")),
                        2, Domain.multipleValues(SHIPMODE, List.of(utf8Slice("AIR"), utf8Slice("AIR REG"))))),
                Optional.of(and(
                        between(field(0, DOUBLE), constant(1.0, DOUBLE), constant(30.0, DOUBLE)),
                        compare(EQUAL, field(1, SHIPINSTRUCT), constant(utf8Slice("DELIVER IN PERSON"), SHIPINSTRUCT)),
                        in(field(2, SHIPMODE), List.of(constant(utf8Slice("AIR"), SHIPMODE), constant(utf8Slice("AIR REG"), SHIPMODE))))),
                List.of(field(3, BIGINT), field(0, DOUBLE), arithmetic(MULTIPLY, field(4, DOUBLE), arithmetic(SUBTRACT, constant(1.0, DOUBLE), field(5, DOUBLE)))),
                List.of(),
                List.of());
    }

    static Plan commentNotLikeSum()
    {
        // channels: 0 comment, 1 extendedprice
        return new Plan(List.of(15, 5), List.of(COMMENT, DOUBLE), TupleDomain.all(),
                Optional.of(notLike(field(0, COMMENT), SPECIAL_REQUESTS)),
                List.of(field(1, DOUBLE)), List.of(), List.of(sum(0)));
    }

    private static TupleDomain<Integer> partkeyDomain()
    {
        return TupleDomain.withColumnDomains(Map.of(0, Domain.create(ValueSet.ofRanges(Range.lessThanOrEqual(BIGINT, 2000L)), false)));
    }

    private static Aggregate sum(int channel)
    {
        return new Aggregate("sum", List.of(DOUBLE), List.of(channel));
    }

    private static Aggregate avg(int channel)
    {
        return new Aggregate("avg", List.of(DOUBLE), List.of(channel));
    }

    private static List<Long> partKeys()
    {
        Random random = new Random(8);
        TreeSet<Long> keys = new TreeSet<>();
        while (keys.size() < 1_333) {
            keys.add(1L + random.nextInt(200_000));
        }
        return List.copyOf(keys);
    }
}

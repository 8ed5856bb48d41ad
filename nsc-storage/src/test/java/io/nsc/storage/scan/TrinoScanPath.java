package io.nsc.storage.scan;

import com.google.common.collect.ImmutableList;
import io.airlift.units.DataSize;
import io.nsc.parquet.LocalParquetDataSource;
import io.trino.Session;
import io.trino.memory.context.LocalMemoryContext;
import io.trino.metadata.TestingFunctionResolution;
import io.trino.operator.AggregationOperator.AggregationOperatorFactory;
import io.trino.operator.DriverYieldSignal;
import io.trino.operator.FlatHashStrategyCompiler;
import io.trino.operator.HashAggregationOperator.HashAggregationOperatorFactory;
import io.trino.operator.Operator;
import io.trino.operator.OperatorFactory;
import io.trino.operator.aggregation.AggregatorFactory;
import io.trino.operator.project.PageProcessor;
import io.trino.parquet.Column;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.metadata.PrunedBlockMetadata;
import io.trino.parquet.predicate.TupleDomainParquetPredicate;
import io.trino.parquet.reader.MetadataReader;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.Page;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.function.OperatorType;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import io.trino.sql.planner.plan.AggregationNode.Step;
import io.trino.sql.planner.plan.PlanNodeId;
import io.trino.sql.relational.RowExpression;
import io.trino.sql.relational.SpecialForm;
import io.trino.type.LikePattern;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.joda.time.DateTimeZone;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static io.trino.parquet.predicate.PredicateUtils.buildPredicate;
import static io.trino.parquet.reader.TrinoColumnIndexStore.getColumnIndexStore;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.sql.analyzer.TypeSignatureProvider.fromTypes;
import static io.trino.sql.relational.Expressions.call;
import static io.trino.sql.relational.Expressions.constant;
import static io.trino.testing.TestingSession.testSessionBuilder;
import static io.trino.testing.TestingTaskContext.createTaskContext;
import static io.trino.type.LikePatternType.LIKE_PATTERN;
import static java.util.concurrent.Executors.newCachedThreadPool;
import static java.util.concurrent.Executors.newScheduledThreadPool;

/**
 * Trino's own path over a Parquet file, for the ratio a storage scan must beat: trino-parquet's
 * {@link ParquetReader} built as Hive's page source builds it (only the columns needed, the
 * page index applied with the same predicate, no row-group pruning: the storage scan is handed
 * its row groups), feeding a {@link PageProcessor} that Trino's {@code ExpressionCompiler}
 * compiled from the filter and projections, and then Trino's partial aggregation operator
 * ({@code HashAggregationOperator} with GROUP BY, {@code AggregationOperator} without), as a
 * worker's source stage runs them. All of it on the calling thread, whose CPU time is the figure.
 */
final class TrinoScanPath
        implements AutoCloseable
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    static final TestingFunctionResolution FUNCTIONS = new TestingFunctionResolution();
    private static final Session SESSION = testSessionBuilder().build();
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();

    /** An aggregate of the partial aggregation: Trino's function name over channels of the projected page. */
    record Aggregate(String function, List<Type> argumentTypes, List<Integer> inputs) {}

    /**
     * @param ordinals the file's columns read, in channel order
     * @param pagePredicate over the channels: what trino-parquet's page index skips by, as the storage scan's
     * @param filter over the channels, compiled by Trino
     * @param projections over the channels; the aggregation's inputs are channels of these
     */
    record Plan(
            List<Integer> ordinals,
            List<Type> types,
            TupleDomain<Integer> pagePredicate,
            Optional<RowExpression> filter,
            List<RowExpression> projections,
            List<Integer> groupBy,
            List<Aggregate> aggregates) {}

    record Result(long rowsScanned, long rowsOut, long cpuNanos) {}

    private final Path file;
    private final ParquetReaderOptions options = ParquetReaderOptions.defaultOptions();
    private final ParquetMetadata footer;
    private final ExecutorService executor = newCachedThreadPool(daemonThreadsNamed("trino-path-%s"));
    private final Map<Plan, Supplier<PageProcessor>> processors = new HashMap<>();
    private final Map<Plan, OperatorFactory> aggregations = new HashMap<>();
    private final ScheduledExecutorService scheduler = newScheduledThreadPool(1, daemonThreadsNamed("trino-path-scheduler-%s"));

    TrinoScanPath(Path file)
            throws IOException
    {
        this.file = file;
        // footers are cached in both paths: the figure is the scan's
        try (ParquetDataSource source = LocalParquetDataSource.open(file, options)) {
            this.footer = MetadataReader.readFooter(source, Optional.empty());
        }
    }

    /** One scan of the row groups {@code [0, rowGroups)}; the CPU is this thread's from opening the file to the last output. */
    Result run(Plan plan, int rowGroups)
            throws IOException
    {
        // compiled once per plan, as Trino's compiler cache does for a query's stages
        // and the accumulators generated once per plan, as a worker does once per query
        Supplier<PageProcessor> compiled = processors.computeIfAbsent(plan, key -> FUNCTIONS.getExpressionCompiler().compilePageProcessor(key.filter(), key.projections()));
        Optional<OperatorFactory> aggregationFactory = plan.aggregates().isEmpty() ? Optional.empty() : Optional.of(aggregations.computeIfAbsent(plan, TrinoScanPath::aggregation));
        long start = THREADS.getCurrentThreadCpuTime();
        PageProcessor processor = compiled.get();
        Optional<Operator> aggregation = aggregationFactory.map(factory -> factory.createOperator(createTaskContext(executor, scheduler, SESSION)
                .addPipelineContext(0, true, true, false)
                .addDriverContext()));
        ConnectorSession session = SESSION.toConnectorSession();
        LocalMemoryContext processorMemory = newSimpleAggregatedMemoryContext().newLocalMemoryContext("processor");
        DriverYieldSignal yield = new DriverYieldSignal();
        long rowsScanned = 0;
        long rowsOut = 0;
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, options);
                ParquetReader reader = reader(source, plan, rowGroups)) {
            for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                rowsScanned += page.getPositionCount();
                Iterator<Optional<Page>> output = processor.process(session, yield, processorMemory, page);
                while (output.hasNext()) {
                    Optional<Page> processed = output.next();
                    if (processed.isEmpty()) {
                        continue;
                    }
                    if (aggregation.isEmpty()) {
                        rowsOut += processed.get().getPositionCount();
                        continue;
                    }
                    aggregation.get().addInput(processed.get());
                    rowsOut += drain(aggregation.get());
                }
            }
        }
        if (aggregation.isPresent()) {
            aggregation.get().finish();
            while (!aggregation.get().isFinished()) {
                rowsOut += drain(aggregation.get());
            }
            try {
                aggregation.get().close();
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return new Result(rowsScanned, rowsOut, THREADS.getCurrentThreadCpuTime() - start);
    }

    private static long drain(Operator operator)
    {
        long rows = 0;
        for (Page page = operator.getOutput(); page != null; page = operator.getOutput()) {
            rows += page.getPositionCount();
        }
        return rows;
    }

    private static OperatorFactory aggregation(Plan plan)
    {
        List<Type> projected = plan.projections().stream().map(RowExpression::type).toList();
        List<AggregatorFactory> aggregators = plan.aggregates().stream()
                .map(aggregate -> FUNCTIONS.getAggregateFunction(aggregate.function(), fromTypes(aggregate.argumentTypes()))
                        .createAggregatorFactory(Step.PARTIAL, aggregate.inputs(), OptionalInt.empty()))
                .toList();
        OperatorFactory factory;
        if (plan.groupBy().isEmpty()) {
            factory = new AggregationOperatorFactory(0, new PlanNodeId("aggregation"), aggregators);
        }
        else {
            factory = new HashAggregationOperatorFactory(
                    0,
                    new PlanNodeId("aggregation"),
                    plan.groupBy().stream().map(projected::get).toList(),
                    plan.groupBy(),
                    ImmutableList.of(),
                    Step.PARTIAL,
                    aggregators,
                    Optional.empty(),
                    Optional.empty(),
                    10_000,
                    // Trino's default task.max-partial-aggregation-memory
                    Optional.of(DataSize.of(16, DataSize.Unit.MEGABYTE)),
                    new FlatHashStrategyCompiler(TYPE_OPERATORS),
                    TYPE_OPERATORS,
                    Optional.empty());
        }
        return factory;
    }

    /** trino-parquet's reader as Hive's page source builds it: the columns by name, the page index by the predicate. */
    private ParquetReader reader(ParquetDataSource source, Plan plan, int rowGroups)
            throws IOException
    {
        MessageType fileSchema = footer.getFileMetaData().getSchema();
        List<org.apache.parquet.schema.Type> fields = plan.ordinals().stream().map(fileSchema::getType).toList();
        MessageType requested = new MessageType(fileSchema.getName(), fields);
        MessageColumnIO columnIO = getColumnIO(fileSchema, requested);
        Map<List<String>, ColumnDescriptor> descriptors = getDescriptors(fileSchema, requested);
        List<Column> columns = new ArrayList<>();
        for (int channel = 0; channel < fields.size(); channel++) {
            String name = fields.get(channel).getName();
            columns.add(new Column(name, constructField(plan.types().get(channel), lookupColumnByName(columnIO, name)).orElseThrow()));
        }
        Map<ColumnDescriptor, Domain> domains = new HashMap<>();
        plan.pagePredicate().getDomains().orElseThrow().forEach((channel, domain) ->
                domains.put(descriptors.get(List.of(fields.get(channel).getName())), domain));
        TupleDomain<ColumnDescriptor> domain = TupleDomain.withColumnDomains(domains);
        List<RowGroupInfo> groups = new ArrayList<>();
        for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
            BlockMetadata block = footer.getBlocks().get(rowGroup);
            Optional<ColumnIndexStore> index = domain.isAll() ? Optional.empty() : getColumnIndexStore(source, block, descriptors, domain, options);
            groups.add(new RowGroupInfo(PrunedBlockMetadata.createPrunedColumnsMetadata(block, source.getId(), descriptors), block.fileRowCountOffset(), index));
        }
        Optional<TupleDomainParquetPredicate> predicate = domain.isAll()
                ? Optional.empty()
                : Optional.of(buildPredicate(requested, domain, descriptors, DateTimeZone.UTC));
        return new ParquetReader(
                Optional.ofNullable(footer.getFileMetaData().getCreatedBy()),
                columns,
                false,
                groups,
                source,
                DateTimeZone.UTC,
                newSimpleAggregatedMemoryContext(),
                options,
                exception -> new RuntimeException(exception),
                predicate,
                Optional.empty());
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        scheduler.shutdownNow();
    }

    // Trino's row expressions, as the planner hands them to the ExpressionCompiler

    static RowExpression compare(OperatorType operator, RowExpression left, RowExpression right)
    {
        return call(FUNCTIONS.resolveOperator(operator, List.of(left.type(), right.type())), left, right);
    }

    static RowExpression arithmetic(OperatorType operator, RowExpression left, RowExpression right)
    {
        return call(FUNCTIONS.resolveOperator(operator, List.of(left.type(), right.type())), left, right);
    }

    static RowExpression and(RowExpression... terms)
    {
        return new SpecialForm(SpecialForm.Form.AND, BOOLEAN, List.of(terms), List.of());
    }

    static RowExpression between(RowExpression value, RowExpression low, RowExpression high)
    {
        return new SpecialForm(SpecialForm.Form.BETWEEN, BOOLEAN, List.of(value, low, high),
                List.of(FUNCTIONS.resolveOperator(OperatorType.LESS_THAN_OR_EQUAL, List.of(value.type(), value.type()))));
    }

    /** {@code value NOT LIKE pattern}, as Trino plans it: {@code $not($like(value, <compiled pattern>))}. */
    static RowExpression notLike(RowExpression value, String pattern)
    {
        RowExpression like = call(FUNCTIONS.resolveFunction("$like", fromTypes(value.type(), LIKE_PATTERN)), value,
                constant(LikePattern.compile(pattern, Optional.empty()), LIKE_PATTERN));
        return call(FUNCTIONS.resolveFunction("$not", fromTypes(BOOLEAN)), like);
    }

    static RowExpression in(RowExpression value, List<RowExpression> candidates)
    {
        Type type = value.type();
        return new SpecialForm(SpecialForm.Form.IN, BOOLEAN, ImmutableList.<RowExpression>builder().add(value).addAll(candidates).build(), List.of(
                FUNCTIONS.resolveOperator(OperatorType.EQUAL, List.of(type, type)),
                FUNCTIONS.resolveOperator(OperatorType.HASH_CODE, List.of(type)),
                FUNCTIONS.resolveOperator(OperatorType.INDETERMINATE, List.of(type))));
    }
}

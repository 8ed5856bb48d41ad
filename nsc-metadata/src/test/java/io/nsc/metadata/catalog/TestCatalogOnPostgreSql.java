package io.nsc.metadata.catalog;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.IntStream;

import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.ALREADY_EXISTS;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The catalog on a real PostgreSQL server, and what only a shared catalog has: two metadata
 * services (two {@link PostgreSqlCatalogDatabase}s, each with its own pool) committing at once
 * over one database keep the commit rules, start-ups migrate a new database once, and
 * transactions that conflict are retried, a bounded number of times.
 */
final class TestCatalogOnPostgreSql
        extends AbstractTestCatalog
{
    private static final int WRITERS = 8;

    @RegisterExtension
    static final PostgreSqlServerExtension postgreSql = new PostgreSqlServerExtension();

    private String url;

    @Override
    protected CatalogDatabase newDatabase()
    {
        url = postgreSql.server().createDatabase();
        return reopenDatabase();
    }

    @Override
    protected CatalogDatabase reopenDatabase()
    {
        return open(url);
    }

    @Override
    protected CatalogDatabase newOtherDatabase()
    {
        return open(postgreSql.server().createDatabase());
    }

    private static PostgreSqlCatalogDatabase open(String url)
    {
        return PostgreSqlCatalogDatabase.open(postgreSql.server().connectionSettings(url, 4));
    }

    @Test
    void testRacingCommitsOnTwoServicesAtTheSameVersion()
            throws Exception
    {
        tables.createSchema("tpch", false);
        tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of(), false);
        try (PostgreSqlCatalogDatabase otherDatabase = open(url)) {
            List<CommitCatalog> services = List.of(commits, TestingCatalog.create(otherDatabase, clock).commits());
            for (long version = 1; version <= 5; version++) {
                List<FileEntry> files = IntStream.range(0, WRITERS).mapToObj(_ -> file(10, "node-a")).toList();
                allocate(files.toArray(FileEntry[]::new));
                long expected = version;
                // writers that all read the same version, half on each service: exactly one may win
                List<Outcome> outcomes = race(writer -> {
                    services.get(writer % 2).commit(CommitRequest.append(LINEITEM, LINEITEM_COLUMNS, List.of(files.get(writer))).withExpectedVersion(expected));
                    return null;
                });
                assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(1);
                assertThat(outcomes).filteredOn(outcome -> !outcome.succeeded())
                        .extracting(Outcome::code)
                        .containsOnly(ABORTED);
                assertThat(outcomes).filteredOn(outcome -> !outcome.succeeded())
                        .extracting(Outcome::description)
                        .containsOnly("Table tpch.lineitem is at version %s, but the commit expects version %s".formatted(version + 1, version));
            }
            // the writers did overlap: PostgreSQL failed some of them, and they ran again to learn they lost
            assertThat(((PostgreSqlCatalogDatabase) database).retries() + otherDatabase.retries()).isPositive();
        }
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.version()).isEqualTo(6);
        assertThat(table.fileCount()).isEqualTo(5);
        assertThat(table.rowCount()).isEqualTo(50);
        assertThat(tables.getTableFiles(table.tableId()).orElseThrow().files()).hasSize(5);
        assertThat(allocations.listAllocations()).hasSize(5 * (WRITERS - 1));
    }

    @Test
    void testRacingCreateTableAsOnTwoServicesCreatesOneTable()
            throws Exception
    {
        tables.createSchema("tpch", false);
        List<FileEntry> files = IntStream.range(0, WRITERS).mapToObj(_ -> file(10, "node-a")).toList();
        allocate(files.toArray(FileEntry[]::new));
        try (PostgreSqlCatalogDatabase otherDatabase = open(url)) {
            List<CommitCatalog> services = List.of(commits, TestingCatalog.create(otherDatabase, clock).commits());
            List<Outcome> outcomes = race(writer -> services.get(writer % 2).commit(
                    CommitRequest.createTableAs(LINEITEM, LINEITEM_COLUMNS, List.of(files.get(writer)), Map.of())));
            assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(1);
            assertThat(outcomes).filteredOn(outcome -> !outcome.succeeded())
                    .extracting(Outcome::code, Outcome::description)
                    .containsOnly(tuple(ALREADY_EXISTS, "Table tpch.lineitem already exists"));
        }
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.version()).isEqualTo(1);
        assertThat(table.fileCount()).isEqualTo(1);
        assertThat(tables.listTables(Optional.empty())).containsExactly(LINEITEM);
        assertThat(countRows("SELECT count(*) FROM tables")).isEqualTo(1);
        assertThat(allocations.listAllocations()).hasSize(WRITERS - 1);
    }

    @Test
    void testOneClaimPerFileAcrossServices()
            throws Exception
    {
        tables.createSchema("tpch", false);
        FileEntry contested = file(10, "node-a");
        allocate(contested);
        try (PostgreSqlCatalogDatabase otherDatabase = open(url)) {
            List<CommitCatalog> services = List.of(commits, TestingCatalog.create(otherDatabase, clock).commits());
            // every writer claims the same file for a table of its own
            List<Outcome> outcomes = race(writer -> services.get(writer % 2).commit(
                    CommitRequest.createOrAppend(new SchemaTableName("tpch", "t" + writer), LINEITEM_COLUMNS, List.of(contested), Map.of())));
            assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(1);
            assertThat(outcomes).filteredOn(outcome -> !outcome.succeeded())
                    .extracting(Outcome::code)
                    .containsOnly(FAILED_PRECONDITION);
        }
        assertThat(tables.listTables(Optional.empty())).hasSize(1);
        assertThat(countRows("SELECT count(*) FROM files")).isEqualTo(1);
        assertThat(countRows("SELECT count(*) FROM file_replicas")).isEqualTo(1);
        assertThat(allocations.listAllocations()).isEmpty();
    }

    @Test
    void testServicesStartingAtOnceMigrateOnce()
            throws Exception
    {
        String fresh = postgreSql.server().createDatabase();
        List<PostgreSqlCatalogDatabase> opened = new ArrayList<>();
        try {
            List<Outcome> outcomes = race(_ -> {
                PostgreSqlCatalogDatabase database = open(fresh);
                synchronized (opened) {
                    opened.add(database);
                }
                return null;
            });
            assertThat(outcomes).allMatch(Outcome::succeeded);
            assertThat(opened).hasSize(WRITERS);
            for (PostgreSqlCatalogDatabase database : opened) {
                assertThat(database.schemaVersion()).isEqualTo(CatalogSchema.VERSION);
            }
            PostgreSqlCatalogDatabase any = opened.getFirst();
            assertThat(countRows(any, "SELECT count(*) FROM schema_version")).isEqualTo(1);
            assertThat(countRows(any, "SELECT count(*) FROM cluster")).isEqualTo(1);
            assertThat(opened.stream().map(database -> new ClusterCatalog(database).clusterId()).distinct()).hasSize(1);
        }
        finally {
            opened.forEach(PostgreSqlCatalogDatabase::close);
        }
    }

    @Test
    void testConflictsAreRetriedBoundedly()
    {
        try (PostgreSqlCatalogDatabase database = PostgreSqlCatalogDatabase.open(postgreSql.server().connectionSettings(url, 2), CatalogSchema.VERSION, 3)) {
            // a work that conflicts twice, then commits: its last run's result, its writes once
            AtomicInteger runs = new AtomicInteger();
            String result = database.inTransaction(handle -> {
                handle.execute("INSERT INTO schemas (schema_name, created_millis) VALUES ('retried', 1)");
                if (runs.incrementAndGet() < 3) {
                    raise(handle, runs.get() == 1 ? "serialization_failure" : "deadlock_detected");
                }
                return "run " + runs.get();
            });
            assertThat(result).isEqualTo("run 3");
            assertThat(database.retries()).isEqualTo(2);
            assertThat(tables.listSchemas()).containsExactly("retried");

            // one that always conflicts: given up after the bound, with nothing changed
            runs.set(0);
            assertThatThrownBy(() -> database.inTransaction(handle -> {
                runs.incrementAndGet();
                handle.execute("INSERT INTO schemas (schema_name, created_millis) VALUES ('never', 1)");
                return raise(handle, "serialization_failure");
            }))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(UNAVAILABLE);
                        assertThat(e.getStatus().getDescription()).startsWith("The catalog transaction conflicted with concurrent ones 3 times in a row (SQLState 40001");
                    });
            assertThat(runs.get()).isEqualTo(3);

            // any other failure is not retried
            runs.set(0);
            assertThatThrownBy(() -> database.inTransaction(handle -> {
                runs.incrementAndGet();
                return handle.execute("INSERT INTO no_such_table VALUES (1)");
            }))
                    .isInstanceOf(CatalogDatabaseException.class)
                    .hasMessageContaining("no_such_table");
            assertThat(runs.get()).isEqualTo(1);
            // and a status the work throws goes to the caller as it is
            assertThatThrownBy(() -> database.inTransaction(_ -> {
                throw Status.NOT_FOUND.withDescription("gone").asRuntimeException();
            })).isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        }
        assertThat(tables.listSchemas()).containsExactly("retried");
    }

    @Test
    void testUnreachableServerFailsAtStartup()
    {
        String nowhere = "jdbc:postgresql://127.0.0.1:1/nsc";
        assertThatThrownBy(() -> PostgreSqlCatalogDatabase.open(postgreSql.server().connectionSettings(nowhere, 1)))
                .isInstanceOf(CatalogDatabaseException.class)
                .hasMessageStartingWith("Cannot connect to the PostgreSQL catalog at jdbc:postgresql://127.0.0.1:1/nsc as nsc: ");
    }

    /** Fails the transaction the way PostgreSQL fails one that conflicts with another. */
    private static Void raise(Handle handle, String condition)
    {
        handle.execute("DO $$ BEGIN RAISE EXCEPTION 'a conflict for the test' USING ERRCODE = '%s'; END $$".formatted(condition));
        throw new AssertionError("not raised");
    }

    private record Outcome(boolean succeeded, Status.Code code, String description) {}

    /** Runs the writers 0 .. WRITERS-1 at once, released together; what each one's call ended with. */
    private static List<Outcome> race(Function<Integer, Object> writer)
            throws Exception
    {
        CyclicBarrier start = new CyclicBarrier(WRITERS);
        List<Callable<Outcome>> calls = IntStream.range(0, WRITERS)
                .<Callable<Outcome>>mapToObj(index -> () -> {
                    start.await();
                    try {
                        Object _ = writer.apply(index);
                        return new Outcome(true, Status.Code.OK, "");
                    }
                    catch (StatusRuntimeException e) {
                        return new Outcome(false, e.getStatus().getCode(), e.getStatus().getDescription());
                    }
                })
                .toList();
        try (ExecutorService executor = Executors.newFixedThreadPool(WRITERS)) {
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<Outcome> future : executor.invokeAll(calls)) {
                outcomes.add(future.get());
            }
            return outcomes;
        }
    }
}

package io.nsc.metadata.catalog;

import io.nsc.metadata.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.ALREADY_EXISTS;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQL views in the catalog, the same on every backend ({@link TestViewCatalogOnH2},
 * {@link TestViewCatalogOnPostgreSql}): kept durably with their opaque definition, in one
 * namespace with the tables of their schema, and moved or dropped with their schema.
 */
abstract class AbstractTestViewCatalog
{
    private static final SchemaTableName VIEW = new SchemaTableName("s", "v");
    private static final SchemaTableName TABLE = new SchemaTableName("s", "t");
    private static final List<TableColumn> COLUMNS = List.of(new TableColumn("x", "bigint"));
    private static final String DEFINITION = "{\"originalSql\":\"SELECT 1 x\"}";

    private final TestingClock clock = new TestingClock(1_750_000_000_000L);
    private CatalogDatabase database;
    private TableCatalog tables;
    private ViewCatalog views;

    /** A new, empty database for one test. */
    protected abstract CatalogDatabase newDatabase();

    /** The database of the test, opened again after it was closed. */
    protected abstract CatalogDatabase reopenDatabase();

    @BeforeEach
    void setUp()
    {
        use(newDatabase());
        tables.createSchema("s", false);
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    private void use(CatalogDatabase database)
    {
        this.database = database;
        TestingCatalog catalog = TestingCatalog.create(database, clock);
        tables = catalog.tables();
        views = new ViewCatalog(database, clock);
    }

    @Test
    void testCreateGetListDrop()
    {
        ViewEntry created = views.createView(VIEW, DEFINITION, Optional.of("a view"), false);
        assertThat(created).isEqualTo(new ViewEntry(VIEW, DEFINITION, Optional.of("a view"), 1, clock.millis()));
        assertThat(views.getView(VIEW)).contains(created);
        views.createView(new SchemaTableName("s", "a"), DEFINITION, Optional.empty(), false);
        assertThat(views.listViews(Optional.of("s"))).containsExactly(new SchemaTableName("s", "a"), VIEW);
        assertThat(views.listViews(Optional.empty())).containsExactly(new SchemaTableName("s", "a"), VIEW);
        // views are no tables
        assertThat(tables.listTables(Optional.of("s"))).isEmpty();
        assertThat(tables.getTable(VIEW)).isEmpty();

        views.dropView(VIEW);
        assertThat(views.getView(VIEW)).isEmpty();
        assertThat(views.listViews(Optional.of("s"))).containsExactly(new SchemaTableName("s", "a"));
        assertStatus(() -> views.dropView(VIEW), NOT_FOUND, "View s.v does not exist");
        assertStatus(() -> views.listViews(Optional.of("missing")), NOT_FOUND, "Schema missing does not exist");
        assertStatus(() -> views.createView(new SchemaTableName("missing", "v"), DEFINITION, Optional.empty(), false), NOT_FOUND, "Schema missing does not exist");
    }

    @Test
    void testReplace()
    {
        views.createView(VIEW, DEFINITION, Optional.of("first"), false);
        assertStatus(() -> views.createView(VIEW, "{}", Optional.empty(), false), ALREADY_EXISTS, "View s.v already exists");
        assertThat(views.getView(VIEW).orElseThrow().definition()).isEqualTo(DEFINITION);

        clock.advance(1, SECONDS);
        ViewEntry replaced = views.createView(VIEW, "{}", Optional.empty(), true);
        assertThat(replaced).isEqualTo(new ViewEntry(VIEW, "{}", Optional.empty(), 2, clock.millis()));
        assertThat(views.getView(VIEW)).contains(replaced);
        // OR REPLACE of a view that is not there creates it
        assertThat(views.createView(new SchemaTableName("s", "w"), "{}", Optional.empty(), true).version()).isEqualTo(1);
    }

    @Test
    void testUpdateNamesTheVersionItRead()
    {
        ViewEntry created = views.createView(VIEW, DEFINITION, Optional.empty(), false);
        clock.advance(1, SECONDS);
        ViewEntry updated = views.updateView(VIEW, "{\"comment\":1}", Optional.of("commented"), created.version());
        assertThat(updated).isEqualTo(new ViewEntry(VIEW, "{\"comment\":1}", Optional.of("commented"), 2, created.createdMillis()));
        // a second change derived from the first version would lose the one made meanwhile
        assertStatus(() -> views.updateView(VIEW, "{\"comment\":2}", Optional.empty(), created.version()), ABORTED,
                "View s.v is at version 2, but the change expects version 1: it was changed meanwhile; nothing was changed");
        assertThat(views.getView(VIEW)).contains(updated);
        assertStatus(() -> views.updateView(new SchemaTableName("s", "missing"), "{}", Optional.empty(), 1), NOT_FOUND, "View s.missing does not exist");
    }

    @Test
    void testViewsAndTablesShareNames()
    {
        tables.createTable(TABLE, COLUMNS, Map.of(), false);
        views.createView(VIEW, DEFINITION, Optional.empty(), false);

        assertStatus(() -> views.createView(TABLE, DEFINITION, Optional.empty(), false), ALREADY_EXISTS, "Table s.t already exists: a view cannot have its name");
        assertStatus(() -> views.createView(TABLE, DEFINITION, Optional.empty(), true), ALREADY_EXISTS, "Table s.t already exists: a view cannot have its name");
        assertStatus(() -> views.renameView(VIEW, TABLE), ALREADY_EXISTS, "Table s.t already exists: a view cannot have its name");

        String clash = "View s.v already exists: a table cannot have its name";
        assertStatus(() -> tables.createTable(VIEW, COLUMNS, Map.of(), false), ALREADY_EXISTS, clash);
        assertStatus(() -> tables.createTable(VIEW, COLUMNS, Map.of(), true), ALREADY_EXISTS, clash);
        assertStatus(() -> tables.createTable(VIEW, COLUMNS, Map.of(), Optional.empty(), TableCatalog.ExistingTable.REPLACE), ALREADY_EXISTS, clash);
        assertStatus(() -> tables.renameTable(TABLE, VIEW), ALREADY_EXISTS, clash);
        // CREATE TABLE AS commits its table
        CommitCatalog commits = TestingCatalog.create(database, clock).commits();
        assertStatus(() -> commits.commit(CommitRequest.createTableAs(VIEW, COLUMNS, List.of(), Map.of())), ALREADY_EXISTS, clash);

        // nothing changed
        assertThat(tables.listTables(Optional.of("s"))).containsExactly(TABLE);
        assertThat(views.listViews(Optional.of("s"))).containsExactly(VIEW);
        assertThat(views.getView(VIEW).orElseThrow().definition()).isEqualTo(DEFINITION);
    }

    @Test
    void testRename()
    {
        tables.createSchema("other", false);
        ViewEntry created = views.createView(VIEW, DEFINITION, Optional.of("c"), false);
        SchemaTableName renamed = new SchemaTableName("other", "w");
        views.renameView(VIEW, renamed);
        assertThat(views.getView(VIEW)).isEmpty();
        assertThat(views.getView(renamed)).contains(new ViewEntry(renamed, DEFINITION, Optional.of("c"), created.version(), created.createdMillis()));

        assertStatus(() -> views.renameView(VIEW, new SchemaTableName("s", "x")), NOT_FOUND, "View s.v does not exist");
        assertStatus(() -> views.renameView(renamed, new SchemaTableName("missing", "x")), NOT_FOUND, "Schema missing does not exist");
        views.createView(VIEW, DEFINITION, Optional.empty(), false);
        assertStatus(() -> views.renameView(renamed, VIEW), ALREADY_EXISTS, "View s.v already exists");
        assertStatusContains(() -> views.renameView(renamed, new SchemaTableName("s", "Bad")), INVALID_ARGUMENT, "Invalid view name 'Bad'");
        assertThat(views.listViews(Optional.empty())).containsExactly(renamed, VIEW);
    }

    @Test
    void testSchemaChangesTakeTheirViews()
    {
        views.createView(VIEW, DEFINITION, Optional.empty(), false);
        assertStatus(() -> tables.dropSchema("s", false, false), FAILED_PRECONDITION, "Schema s is not empty");
        assertThat(views.getView(VIEW)).isPresent();

        tables.renameSchema("s", "renamed");
        assertThat(views.listViews(Optional.empty())).containsExactly(new SchemaTableName("renamed", "v"));
        assertThat(views.getView(new SchemaTableName("renamed", "v")).orElseThrow().definition()).isEqualTo(DEFINITION);

        tables.createTable(new SchemaTableName("renamed", "t"), COLUMNS, Map.of(), false);
        assertThat(tables.dropSchema("renamed", false, true)).hasValueSatisfying(dropped -> assertThat(dropped).hasSize(1));
        assertThat(views.listViews(Optional.empty())).isEmpty();
        assertThat(tables.listSchemas()).isEmpty();
        // the name is free again, for a schema and its views
        tables.createSchema("renamed", false);
        views.createView(new SchemaTableName("renamed", "v"), DEFINITION, Optional.empty(), false);
    }

    @Test
    void testBadInputChangesNothing()
    {
        views.createView(VIEW, DEFINITION, Optional.empty(), false);
        int limit = ViewDefinitions.MAX_DEFINITION_BYTES;
        // two bytes a character in UTF-8: fewer characters than the limit, more bytes
        String tooLong = "é".repeat(limit / 2 + 1);
        String expected = "The definition of a view is longer than 1048576 bytes";
        assertStatus(() -> views.createView(new SchemaTableName("s", "w"), tooLong, Optional.empty(), false), INVALID_ARGUMENT, expected);
        assertStatus(() -> views.createView(VIEW, "x".repeat(limit + 1), Optional.empty(), true), INVALID_ARGUMENT, expected);
        assertStatus(() -> views.updateView(VIEW, tooLong, Optional.empty(), 1), INVALID_ARGUMENT, expected);
        assertStatus(() -> views.createView(new SchemaTableName("s", "w"), "", Optional.empty(), false), INVALID_ARGUMENT, "A view needs a definition");
        assertStatus(() -> views.createView(new SchemaTableName("s", "w"), "{\0}", Optional.empty(), false), INVALID_ARGUMENT, "The definition of a view cannot contain the NUL character");
        assertStatus(() -> views.updateView(VIEW, DEFINITION, Optional.of("c".repeat(65_537)), 1), INVALID_ARGUMENT, "A comment is longer than 65536 characters");
        assertStatusContains(() -> views.createView(new SchemaTableName("s", "a-b"), DEFINITION, Optional.empty(), false), INVALID_ARGUMENT, "Invalid view name 'a-b'");
        assertStatus(() -> views.createView(new SchemaTableName("s", ""), DEFINITION, Optional.empty(), false), INVALID_ARGUMENT, "The view name is empty");

        assertThat(views.listViews(Optional.empty())).containsExactly(VIEW);
        assertThat(views.getView(VIEW)).contains(new ViewEntry(VIEW, DEFINITION, Optional.empty(), 1, clock.millis()));
    }

    @Test
    void testDefinitionsUpToTheLimitAreKeptExactly()
    {
        String largest = "x".repeat(ViewDefinitions.MAX_DEFINITION_BYTES - 2) + "é";
        views.createView(VIEW, largest, Optional.of("ü ✓"), false);
        assertThat(views.getView(VIEW).orElseThrow().definition()).isEqualTo(largest);
        String unicode = "{\"originalSql\":\"SELECT 'ü ✓ 𝄞' x\"}";
        views.updateView(VIEW, unicode, Optional.empty(), 1);
        assertThat(views.getView(VIEW).orElseThrow().definition()).isEqualTo(unicode);
    }

    @Test
    void testViewsSurviveReopening()
    {
        views.createView(VIEW, DEFINITION, Optional.of("kept"), false);
        database.close();
        use(reopenDatabase());
        assertThat(views.getView(VIEW)).contains(new ViewEntry(VIEW, DEFINITION, Optional.of("kept"), 1, clock.millis()));
        assertThat(views.listViews(Optional.of("s"))).containsExactly(VIEW);
    }

    @Test
    void testMaterializedViewsAreAKindOfTheirOwn()
    {
        SchemaTableName materialized = new SchemaTableName("s", "m");
        ViewEntry created = views.createView(materialized, DEFINITION, Optional.of("mv"), false, true);
        assertThat(created).isEqualTo(new ViewEntry(materialized, DEFINITION, Optional.of("mv"), 1, clock.millis(), true));
        views.createView(VIEW, DEFINITION, Optional.empty(), false);

        // each call finds only the kind it names
        assertThat(views.getView(materialized, true)).contains(created);
        assertThat(views.getView(materialized)).isEmpty();
        assertThat(views.getView(VIEW, true)).isEmpty();
        assertThat(views.listViews(Optional.of("s"), true)).containsExactly(materialized);
        assertThat(views.listViews(Optional.empty())).containsExactly(VIEW);
        assertStatus(() -> views.dropView(materialized), NOT_FOUND, "View s.m does not exist");
        assertStatus(() -> views.dropView(VIEW, true), NOT_FOUND, "Materialized view s.v does not exist");
        assertStatus(() -> views.updateView(materialized, "{}", Optional.empty(), 1), NOT_FOUND, "View s.m does not exist");
        assertStatus(() -> views.renameView(materialized, new SchemaTableName("s", "x")), NOT_FOUND, "View s.m does not exist");

        // one namespace: OR REPLACE replaces its own kind only, and tables stay out
        assertStatus(() -> views.createView(materialized, DEFINITION, Optional.empty(), true), ALREADY_EXISTS, "Materialized view s.m already exists");
        assertStatus(() -> views.createView(VIEW, DEFINITION, Optional.empty(), true, true), ALREADY_EXISTS, "View s.v already exists");
        assertStatus(() -> views.renameView(VIEW, materialized), ALREADY_EXISTS, "Materialized view s.m already exists");
        assertStatus(() -> tables.createTable(materialized, COLUMNS, Map.of(), false), ALREADY_EXISTS, "Materialized view s.m already exists: a table cannot have its name");
        tables.createTable(TABLE, COLUMNS, Map.of(), false);
        assertStatus(() -> views.createView(TABLE, DEFINITION, Optional.empty(), false, true), ALREADY_EXISTS, "Table s.t already exists: a view cannot have its name");

        // a refresh records what it read, naming the version it read
        clock.advance(1, SECONDS);
        ViewEntry refreshed = views.updateView(materialized, "{\"refreshed\":1}", Optional.of("mv"), 1, true);
        assertThat(refreshed).isEqualTo(new ViewEntry(materialized, "{\"refreshed\":1}", Optional.of("mv"), 2, created.createdMillis(), true));
        assertStatus(() -> views.updateView(materialized, "{}", Optional.empty(), 1, true), ABORTED,
                "View s.m is at version 2, but the change expects version 1: it was changed meanwhile; nothing was changed");
        assertThat(views.createView(materialized, "{}", Optional.empty(), true, true).version()).isEqualTo(3);

        SchemaTableName renamed = new SchemaTableName("s", "n");
        views.renameView(materialized, renamed, true);
        assertThat(views.getView(renamed, true).orElseThrow().materialized()).isTrue();
        views.dropView(renamed, true);
        assertThat(views.listViews(Optional.empty(), true)).isEmpty();
        assertThat(views.listViews(Optional.empty())).containsExactly(VIEW);
    }

    @Test
    void testMaterializedViewsGoWithTheirSchemaAndSurviveReopening()
    {
        SchemaTableName materialized = new SchemaTableName("s", "m");
        views.createView(materialized, DEFINITION, Optional.empty(), false, true);
        database.close();
        use(reopenDatabase());
        assertThat(views.getView(materialized, true)).contains(new ViewEntry(materialized, DEFINITION, Optional.empty(), 1, clock.millis(), true));
        assertStatus(() -> tables.dropSchema("s", false, false), FAILED_PRECONDITION, "Schema s is not empty");
        tables.renameSchema("s", "renamed");
        assertThat(views.listViews(Optional.empty(), true)).containsExactly(new SchemaTableName("renamed", "m"));
        tables.dropSchema("renamed", false, true);
        assertThat(views.listViews(Optional.empty(), true)).isEmpty();
    }
}

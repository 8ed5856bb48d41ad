package io.nsc.metadata.server;

import com.google.protobuf.ByteString;
import io.nsc.metadata.TestingClock;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableColumn;
import io.nsc.metadata.catalog.TestingCatalog;
import io.nsc.protocol.proto.ListTableDefinitionsRequest;
import io.nsc.protocol.proto.ListTableDefinitionsResponse;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ListTableDefinitions answers within its limits: at most the page size, at most the byte limit
 * once a page holds a table, and a token that continues after the last table answered.
 */
final class TestTableDefinitionsPaging
{
    private static final int TABLES = 30;
    // about 10 tables of a 200-character comment each
    private static final long MAX_PAGE_BYTES = 2500;

    @TempDir
    Path dataDir;

    private CatalogDatabase database;
    private TableCatalog tables;

    @BeforeEach
    void setUp()
    {
        database = H2CatalogDatabase.open(dataDir.resolve("catalog"));
        tables = TestingCatalog.create(database, new TestingClock(1_750_000_000_000L)).tables();
        tables.createSchema("s", false);
        for (int i = 0; i < TABLES; i++) {
            tables.createTable(new SchemaTableName("s", "t%02d".formatted(i)), List.of(new TableColumn("x", "bigint")), Map.of(), Optional.of("c".repeat(200)), TableCatalog.ExistingTable.FAIL);
        }
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    @Test
    void testPagesWithinTheByteLimit()
    {
        TableDefinitionsPaging paging = new TableDefinitionsPaging(20, 25, MAX_PAGE_BYTES);
        List<ListTableDefinitionsResponse> pages = pages(paging, ListTableDefinitionsRequest.newBuilder().setSchemaName("s"));
        assertThat(pages).hasSizeGreaterThan(2);
        assertThat(pages).allSatisfy(page -> assertThat(page.getTablesList().stream().mapToInt(TableInfo::getSerializedSize).sum()).isLessThanOrEqualTo((int) MAX_PAGE_BYTES));
        assertThat(pages.stream().flatMap(page -> page.getTablesList().stream()).toList())
                .isEqualTo(tables.listTables(Optional.of("s")).stream().map(name -> MetadataProtoMapper.toTableInfo(tables.getTable(name).orElseThrow())).toList());

        // one table larger than the limit is answered alone
        TableDefinitionsPaging tiny = new TableDefinitionsPaging(20, 25, 10);
        assertThat(pages(tiny, ListTableDefinitionsRequest.newBuilder())).hasSize(TABLES).allSatisfy(page -> assertThat(page.getTablesCount()).isEqualTo(1));
    }

    @Test
    void testPageSizes()
    {
        TableDefinitionsPaging paging = new TableDefinitionsPaging(7, 12, Long.MAX_VALUE);
        assertThat(paging.answer(tables, ListTableDefinitionsRequest.getDefaultInstance(), MetadataProtoMapper::toTableInfo).getTablesCount()).isEqualTo(7);
        assertThat(paging.answer(tables, ListTableDefinitionsRequest.newBuilder().setPageSize(3).build(), MetadataProtoMapper::toTableInfo).getTablesCount()).isEqualTo(3);
        assertThat(paging.answer(tables, ListTableDefinitionsRequest.newBuilder().setPageSize(1000).build(), MetadataProtoMapper::toTableInfo).getTablesCount()).isEqualTo(12);
        // a full last page cannot tell that nothing follows: the next one is empty
        List<ListTableDefinitionsResponse> fullPages = pages(paging, ListTableDefinitionsRequest.newBuilder().setPageSize(10));
        assertThat(fullPages).extracting(ListTableDefinitionsResponse::getTablesCount).containsExactly(10, 10, 10, 0);
        ListTableDefinitionsResponse omitted = paging.answer(tables, ListTableDefinitionsRequest.newBuilder().setOmitColumns(true).build(), MetadataProtoMapper::toTableInfo);
        assertThat(omitted.getTablesList()).allSatisfy(table -> {
            assertThat(table.getColumnsList()).isEmpty();
            assertThat(table.getComment()).hasSize(200);
        });
    }

    @Test
    void testRefusals()
    {
        TableDefinitionsPaging paging = new TableDefinitionsPaging();
        assertStatus(() -> paging.answer(tables, ListTableDefinitionsRequest.newBuilder().setPageSize(-1).build(), MetadataProtoMapper::toTableInfo), INVALID_ARGUMENT, "Page size -1 is negative");
        assertStatus(() -> paging.answer(tables, ListTableDefinitionsRequest.newBuilder().setPageToken(ByteString.copyFromUtf8("garbage")).build(), MetadataProtoMapper::toTableInfo),
                INVALID_ARGUMENT, "Not a page token of a table listing");
        ListTableDefinitionsRequest.Builder tooMany = ListTableDefinitionsRequest.newBuilder();
        IntStream.range(0, 1001).forEach(i -> tooMany.addTables(TableName.newBuilder().setSchemaName("s").setTableName("t" + i)));
        assertStatus(() -> paging.answer(tables, tooMany.build(), MetadataProtoMapper::toTableInfo), INVALID_ARGUMENT, "At most 1000 table names per listing, got 1001");
        assertStatus(() -> paging.answer(tables, ListTableDefinitionsRequest.newBuilder().setSchemaName("missing").build(), MetadataProtoMapper::toTableInfo), NOT_FOUND, "Schema missing does not exist");
    }

    private List<ListTableDefinitionsResponse> pages(TableDefinitionsPaging paging, ListTableDefinitionsRequest.Builder request)
    {
        List<ListTableDefinitionsResponse> pages = new ArrayList<>();
        ByteString token = ByteString.EMPTY;
        do {
            ListTableDefinitionsResponse page = paging.answer(tables, request.setPageToken(token).build(), MetadataProtoMapper::toTableInfo);
            pages.add(page);
            token = page.getNextPageToken();
        }
        while (!token.isEmpty());
        return pages;
    }
}

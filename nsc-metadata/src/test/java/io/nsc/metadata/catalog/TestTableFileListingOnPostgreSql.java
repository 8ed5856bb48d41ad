package io.nsc.metadata.catalog;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

final class TestTableFileListingOnPostgreSql
        extends AbstractTestTableFileListing
{
    private static TestingPostgreSqlServer server;

    @BeforeAll
    static void startServer()
    {
        server = TestingPostgreSqlServer.start();
    }

    @AfterAll
    static void stopServer()
    {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected CatalogDatabase newDatabase()
    {
        return PostgreSqlCatalogDatabase.open(server.connectionSettings(server.createDatabase(), 4));
    }
}

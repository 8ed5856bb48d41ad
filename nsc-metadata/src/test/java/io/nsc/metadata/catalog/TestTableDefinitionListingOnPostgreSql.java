package io.nsc.metadata.catalog;

import org.junit.jupiter.api.extension.RegisterExtension;

final class TestTableDefinitionListingOnPostgreSql
        extends AbstractTestTableDefinitionListing
{
    @RegisterExtension
    static final PostgreSqlServerExtension postgreSql = new PostgreSqlServerExtension();

    @Override
    protected CatalogDatabase newDatabase()
    {
        TestingPostgreSqlServer server = postgreSql.server();
        return PostgreSqlCatalogDatabase.open(server.connectionSettings(server.createDatabase(), 4));
    }
}

package io.nsc.metadata.catalog;

import org.junit.jupiter.api.extension.RegisterExtension;

final class TestStatisticsCatalogOnPostgreSql
        extends AbstractTestStatisticsCatalog
{
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
        return PostgreSqlCatalogDatabase.open(postgreSql.server().connectionSettings(url, 4));
    }
}

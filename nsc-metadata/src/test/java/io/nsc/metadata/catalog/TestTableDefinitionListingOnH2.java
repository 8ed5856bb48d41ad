package io.nsc.metadata.catalog;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

final class TestTableDefinitionListingOnH2
        extends AbstractTestTableDefinitionListing
{
    @TempDir
    Path dataDir;

    @Override
    protected CatalogDatabase newDatabase()
    {
        return H2CatalogDatabase.open(dataDir.resolve("catalog"));
    }
}

package io.nsc.metadata.catalog;

/**
 * Where the catalog lives: {@link #H2}, an embedded database in the metadata service's data
 * directory (one service, backed up with {@code ./nsc backup}); or {@link #POSTGRESQL}, a server
 * that several metadata services share, so that losing one service or its disk loses no table.
 */
public enum CatalogBackend
{
    H2,
    POSTGRESQL,
}

package io.nsc.metadata.catalog;

import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What the catalog holds about the cluster as a whole, one row for the life of the database: its
 * id, and the secret that signs upload grants.
 */
public final class ClusterCatalog
{
    private final CatalogDatabase database;

    public ClusterCatalog(CatalogDatabase database)
    {
        this.database = requireNonNull(database, "database is null");
    }

    /**
     * The id of the cluster this catalog belongs to: created with the database (schema version 3)
     * and never changed, so it survives restarts and tells storage nodes whether they still talk
     * to the catalog that knows their files.
     */
    public String clusterId()
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT cluster_id FROM cluster")
                .mapTo(String.class)
                .findOne()
                .orElseThrow(() -> new CatalogDatabaseException("The catalog database has no cluster id")));
    }

    /**
     * The cluster's grant secret: the one in the catalog, or {@code newSecret} stored as it when
     * there is none yet. Services over one database that ask at once all get the same secret.
     */
    public byte[] grantSecret(Supplier<byte[]> newSecret)
    {
        requireNonNull(newSecret, "newSecret is null");
        return database.inTransaction(handle -> {
            byte[] stored = handle.createQuery("SELECT grant_secret FROM cluster")
                    .map((row, _) -> row.getBytes("grant_secret"))
                    .one();
            if (stored != null) {
                return stored;
            }
            byte[] secret = newSecret.get();
            checkArgument(secret.length > 0, "The grant secret is empty");
            handle.createUpdate("UPDATE cluster SET grant_secret = :secret")
                    .bind("secret", secret)
                    .execute();
            return secret;
        });
    }
}

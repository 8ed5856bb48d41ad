package io.nsc.metadata.catalog;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * How a metadata service reaches the PostgreSQL catalog it shares with other services.
 *
 * @param maxConnections the pool's bound: what one service may hold of the server's connections
 */
public record PostgreSqlConnectionSettings(String url, String user, String password, int maxConnections)
{
    public PostgreSqlConnectionSettings
    {
        requireNonNull(url, "url is null");
        requireNonNull(user, "user is null");
        requireNonNull(password, "password is null");
        checkArgument(url.startsWith("jdbc:postgresql:"), "Not a PostgreSQL JDBC URL: %s", url);
        checkArgument(maxConnections >= 1, "maxConnections must be at least 1");
    }

    @Override
    public String toString()
    {
        // the password stays out of logs and messages
        return "PostgreSqlConnectionSettings[url=%s, user=%s, maxConnections=%s]".formatted(url, user, maxConnections);
    }
}

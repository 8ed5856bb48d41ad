package io.nsc.tests.cluster;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Base64;
import java.util.Properties;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * What a client needs to reach a cluster's Trino as users do: its HTTPS port on localhost, the
 * user {@code nsc} with the password the cluster made, and the cluster CA that signed Trino's
 * certificate. JDBC, the REST API and the Python client all connect with it.
 */
public record TrinoAccess(int httpsPort, String user, String password, Path caFile)
{
    public TrinoAccess
    {
        requireNonNull(user, "user is null");
        requireNonNull(password, "password is null");
        requireNonNull(caFile, "caFile is null");
    }

    public String jdbcUrl(String path)
    {
        return "jdbc:trino://localhost:%s/%s".formatted(httpsPort, path);
    }

    public Connection connect(String path)
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("SSL", "true");
        properties.setProperty("SSLTrustStorePath", caFile.toString());
        return DriverManager.getConnection(jdbcUrl(path), properties);
    }

    public String basicAuthorization()
    {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(UTF_8));
    }
}

package io.nsc.metadata.catalog;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static com.google.common.base.Preconditions.checkState;

/**
 * One {@link TestingPostgreSqlServer} for a test class, started before its first test and stopped
 * after its last: {@code @RegisterExtension static final PostgreSqlServerExtension postgreSql = ...}.
 */
public final class PostgreSqlServerExtension
        implements BeforeAllCallback, AfterAllCallback
{
    private TestingPostgreSqlServer server;

    @Override
    public void beforeAll(ExtensionContext context)
    {
        server = TestingPostgreSqlServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context)
    {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    public TestingPostgreSqlServer server()
    {
        checkState(server != null, "The PostgreSQL server runs only while the test class does");
        return server;
    }
}

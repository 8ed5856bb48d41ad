package io.nsc.metadata.repair;

import io.nsc.metadata.catalog.PostgreSqlConnectionSettings;
import io.nsc.metadata.catalog.PostgreSqlServerExtension;
import io.nsc.metadata.catalog.TestingPostgreSqlServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** One leader among the services over one PostgreSQL catalog, and a new one when it goes. */
final class TestPostgreSqlReplicationLeadership
{
    @RegisterExtension
    static final PostgreSqlServerExtension postgreSql = new PostgreSqlServerExtension();

    @Test
    void testOneLeaderAndATakeOverWhenItCloses()
    {
        PostgreSqlConnectionSettings settings = postgreSql.server().connectionSettings(postgreSql.server().createDatabase(), 1);
        try (PostgreSqlReplicationLeadership first = new PostgreSqlReplicationLeadership(settings);
                PostgreSqlReplicationLeadership second = new PostgreSqlReplicationLeadership(settings)) {
            assertThat(first.tryLead()).isTrue();
            assertThat(second.tryLead()).isFalse();
            // asking again neither loses nor stacks the lock
            assertThat(first.tryLead()).isTrue();
            assertThat(second.tryLead()).isFalse();

            first.close();
            assertThat(second.tryLead()).isTrue();
            assertThat(first.tryLead()).isFalse();
        }
    }

    @Test
    void testLeaderWhoseSessionEndsStepsDown()
            throws SQLException, InterruptedException
    {
        String url = postgreSql.server().createDatabase();
        PostgreSqlConnectionSettings settings = postgreSql.server().connectionSettings(url, 1);
        try (PostgreSqlReplicationLeadership first = new PostgreSqlReplicationLeadership(settings);
                PostgreSqlReplicationLeadership second = new PostgreSqlReplicationLeadership(settings)) {
            assertThat(first.tryLead()).isTrue();
            assertThat(second.tryLead()).isFalse();

            // what a dead process or a cut connection looks like to PostgreSQL: the session ends
            assertThat(terminateLockHolder(url)).isEqualTo(1);
            awaitLockReleased(url);
            assertThat(second.tryLead()).isTrue();
            assertThat(first.tryLead()).isFalse();
            assertThat(second.tryLead()).isTrue();
        }
    }

    private static int terminateLockHolder(String url)
            throws SQLException
    {
        return countOverLockHolders(url, "count(pg_terminate_backend(pid))");
    }

    /** pg_terminate_backend only signals the session: the lock is free once its process has exited. */
    private static void awaitLockReleased(String url)
            throws SQLException, InterruptedException
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (countOverLockHolders(url, "count(*)") > 0) {
            assertThat(System.nanoTime()).as("the terminated session released the lock in time").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static int countOverLockHolders(String url, String count)
            throws SQLException
    {
        try (Connection connection = DriverManager.getConnection(url, TestingPostgreSqlServer.USER, "");
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT " + count + " FROM pg_locks "
                                + "WHERE locktype = 'advisory' AND granted AND objid::bigint = ? "
                                + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
            // PostgreSQL shows a bigint key as its two 32-bit halves: objid is the low one
            statement.setLong(1, PostgreSqlReplicationLeadership.LOCK_KEY & 0xFFFF_FFFFL);
            try (ResultSet resultSet = statement.executeQuery()) {
                resultSet.next();
                return resultSet.getInt(1);
            }
        }
    }
}

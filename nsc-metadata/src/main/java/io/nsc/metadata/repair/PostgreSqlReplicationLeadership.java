package io.nsc.metadata.repair;

import io.airlift.log.Logger;
import io.nsc.metadata.catalog.PostgreSqlConnectionSettings;
import jakarta.annotation.PreDestroy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Leadership through a PostgreSQL session-level advisory lock held on a connection of its own.
 *
 * <p>The lock lives exactly as long as that database session: when the leading service dies
 * (even by SIGKILL) or loses its connection, PostgreSQL ends the session and releases the lock, and
 * the next service to try takes it. A leader checks that its session is still alive before each
 * repair pass, so a service cut off from the database stops planning copies rather than planning
 * them beside a new leader.
 */
public final class PostgreSqlReplicationLeadership
        implements ReplicationLeadership
{
    private static final Logger log = Logger.get(PostgreSqlReplicationLeadership.class);

    // an arbitrary key that names "nsc replication leader" among the database's advisory locks
    static final long LOCK_KEY = 0x6e73_6372_6570_6169L;
    private static final int VALIDATION_TIMEOUT_SECONDS = 5;

    private final PostgreSqlConnectionSettings settings;
    // guarded by this
    private Optional<Connection> session = Optional.empty();
    // guarded by this
    private boolean leader;

    public PostgreSqlReplicationLeadership(PostgreSqlConnectionSettings settings)
    {
        this.settings = requireNonNull(settings, "settings is null");
    }

    @Override
    public synchronized boolean tryLead()
    {
        try {
            if (leader && session.isPresent() && session.get().isValid(VALIDATION_TIMEOUT_SECONDS)) {
                return true;
            }
            if (leader) {
                log.warn("Lost the connection that holds the replication leadership: this service stops planning repairs");
                endSession();
            }
            Connection connection = session.isPresent() ? session.get() : DriverManager.getConnection(settings.url(), settings.user(), settings.password());
            session = Optional.of(connection);
            try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                statement.setLong(1, LOCK_KEY);
                try (ResultSet resultSet = statement.executeQuery()) {
                    resultSet.next();
                    leader = resultSet.getBoolean(1);
                }
            }
            if (leader) {
                log.info("This metadata service now leads replication: it plans the cluster's repairs");
            }
            return leader;
        }
        catch (SQLException e) {
            log.warn("Cannot reach the catalog database to take the replication leadership: %s", e.getMessage());
            endSession();
            return false;
        }
    }

    /** Gives the lock up at once, so that a service taking over after a clean stop finds it free. */
    private static void release(Connection connection)
    {
        try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            statement.setLong(1, LOCK_KEY);
            statement.execute();
        }
        catch (SQLException e) {
            // a session that is gone has released it already
            log.debug(e, "Error releasing the replication leadership");
        }
    }

    @PreDestroy
    @Override
    public synchronized void close()
    {
        // only on a clean stop: on a session found dead, a statement could wait for a lost server
        if (leader) {
            session.ifPresent(PostgreSqlReplicationLeadership::release);
        }
        endSession();
    }

    private void endSession()
    {
        leader = false;
        session.ifPresent(connection -> {
            try {
                // the server ends the session, and frees what it still holds, only after the
                // connection is gone: another service may find the lock taken a moment longer
                connection.close();
            }
            catch (SQLException e) {
                log.debug(e, "Error closing the leadership connection");
            }
        });
        session = Optional.empty();
    }
}

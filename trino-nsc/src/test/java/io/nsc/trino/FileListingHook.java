package io.nsc.trino;

import com.google.inject.Scopes;
import io.nsc.trino.metadata.TableFilesCache;
import io.trino.spi.Plugin;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * Runs a test's action once, on the coordinator, at a chosen point of a scan's file listing: just
 * before the scan lists its batch of files with a given index (0: before it lists any). The scan
 * waits for the action, so what the action commits lands at exactly that point, with no timing
 * involved.
 */
public final class FileListingHook
{
    private final AtomicReference<PendingAction> pending = new AtomicReference<>();

    /** An action waiting for its listing; a test whose action never ran proved nothing. */
    public static final class PendingAction
    {
        private final SchemaTableName table;
        private final int batch;
        private final Runnable action;
        private final AtomicBoolean ran = new AtomicBoolean();

        private PendingAction(SchemaTableName table, int batch, Runnable action)
        {
            this.table = requireNonNull(table, "table is null");
            this.batch = batch;
            this.action = requireNonNull(action, "action is null");
        }

        public boolean ran()
        {
            return ran.get();
        }
    }

    /** The nsc plugin, its connectors reporting their scans' file listings to this hook. */
    public Plugin plugin()
    {
        ConnectorFactory factory = new NscConnectorFactory(binder -> {
            binder.bind(FileListingHook.class).toInstance(this);
            binder.bind(TableFilesCache.class).to(PacedTableFilesCache.class).in(Scopes.SINGLETON);
        });
        return new Plugin()
        {
            @Override
            public Iterable<ConnectorFactory> getConnectorFactories()
            {
                return List.of(factory);
            }
        };
    }

    /** Runs {@code action} when the next listing of {@code table} is about to list batch {@code batch}. */
    public PendingAction beforeBatch(SchemaTableName table, int batch, Runnable action)
    {
        PendingAction pendingAction = new PendingAction(table, batch, action);
        checkState(pending.compareAndSet(null, pendingAction), "an action is pending already");
        return pendingAction;
    }

    /** Called by the watched connector before it lists batch {@code batch} of {@code table}. */
    void reached(SchemaTableName table, int batch)
    {
        PendingAction current = pending.get();
        // the action's own queries list the table too: it runs once, for the listing that reached it first
        if (current != null && current.table.equals(table) && current.batch == batch && pending.compareAndSet(current, null)) {
            current.action.run();
            current.ran.set(true);
        }
    }

    public boolean isPending()
    {
        return pending.get() != null;
    }
}

package io.nsc.metadata.repair;

/**
 * Whether this metadata service plans the cluster's repairs. Several services over one catalog
 * must not each plan copies of the same under-replicated file, so exactly one of them, the
 * leader, checks replication and hands out copy tasks; the others serve everything else.
 */
public interface ReplicationLeadership
        extends AutoCloseable
{
    /**
     * Whether this service leads now; a service that is not the leader tries to become it, so
     * that when the leader dies another takes over at its next check.
     */
    boolean tryLead();

    @Override
    default void close() {}

    /** The only service over its catalog (an embedded H2 catalog has exactly one). */
    static ReplicationLeadership sole()
    {
        return () -> true;
    }
}

package io.nsc.storage.store;

import static java.util.Objects.requireNonNull;

/** A copy this node stopped serving because its bytes are damaged, and why. */
public record DamagedFile(FileId id, String reason)
{
    public DamagedFile
    {
        requireNonNull(id, "id is null");
        requireNonNull(reason, "reason is null");
    }
}

package io.nsc.storage.store;

import java.io.IOException;

/**
 * Bytes of a stored file that no longer match the checksums recorded when they arrived: the
 * disk returned something else than was written. The copy is lost; other replicas are not.
 */
public final class CorruptBlockException
        extends IOException
{
    public CorruptBlockException(String message)
    {
        super(message);
    }
}

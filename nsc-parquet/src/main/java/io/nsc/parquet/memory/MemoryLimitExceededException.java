package io.nsc.parquet.memory;

/**
 * A scan asked for more memory than its budget allows. The request is too expensive for the
 * node, not malformed: storage nodes answer it with RESOURCE_EXHAUSTED.
 */
public class MemoryLimitExceededException
        extends RuntimeException
{
    public MemoryLimitExceededException(String message)
    {
        super(message);
    }
}

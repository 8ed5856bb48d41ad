package io.nsc.parquet.memory;

/**
 * A scan asked for more memory than its budget allows. The request is too expensive for the
 * node, not malformed: storage nodes answer it with RESOURCE_EXHAUSTED. A storage node's
 * subclass says the memory behind the budget (the node's shared pool) ran out instead: the node
 * is busy, not the request too big.
 */
public class MemoryLimitExceededException
        extends RuntimeException
{
    public MemoryLimitExceededException(String message)
    {
        super(message);
    }
}

package io.nsc.tools.cli;

/** The command line is malformed: the tool prints its usage and exits with status 2. */
public final class UsageException
        extends Exception
{
    public UsageException(String message)
    {
        super(message);
    }
}

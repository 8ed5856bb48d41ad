package io.nsc.tools.load;

/** A load was refused or failed; the message is meant for the person running it. */
public final class LoadException
        extends RuntimeException
{
    public LoadException(String message)
    {
        super(message);
    }

    public LoadException(String message, Throwable cause)
    {
        super(message, cause);
    }

    /** A failure before the commit: the table is as it was. */
    static LoadException nothingLoaded(String message)
    {
        return new LoadException(message + "; nothing was loaded");
    }

    static LoadException nothingLoaded(String message, Throwable cause)
    {
        return new LoadException(message + "; nothing was loaded", cause);
    }
}

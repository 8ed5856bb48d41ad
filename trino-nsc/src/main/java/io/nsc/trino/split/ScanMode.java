package io.nsc.trino.split;

/** How the worker reads one split. */
public enum ScanMode
{
    /** Fetch the needed column chunks' bytes and decode on the worker. */
    RAW,
    /** Ask a storage node to decode, filter, project and limit, and send pages. */
    FILTER,
}

package io.nsc.trino;

/**
 * How much of a query nsc does near the data (session property {@code pushdown}, catalog
 * property {@code nsc.pushdown}).
 */
public enum PushdownMode
{
    /** Per split, raw byte ranges or a storage-side scan, whichever the estimates favour. */
    AUTO,
    /** Every split is scanned by a storage node: filtered, projected and limited there. */
    FILTER,
    /** Workers read raw byte ranges and decode; the coordinator still prunes row groups. */
    RAW,
    /** Nothing pushed, nothing pruned: every row group of every column the query reads is shipped. */
    NONE;

    /** Whether the connector itself applies the query's predicate to every row it returns. */
    public boolean enforcesPredicate()
    {
        return this == AUTO || this == FILTER;
    }
}

package io.nsc.protocol.predicate;

/**
 * How many rows of a row group can satisfy a predicate, as far as its statistics tell.
 */
public enum RowGroupMatch
{
    /**
     * No row matches: the row group can be skipped.
     */
    NONE,
    /**
     * Some rows may match: read the row group and filter.
     */
    SOME,
    /**
     * Every row matches: read without filtering, or answer counts from statistics.
     */
    ALL,
}

package io.nsc.metadata.catalog;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What ANALYZE computed for one column slot over one table version.
 *
 * @param ordinal the column's slot among all the table's columns, dropped ones included
 * @param analyzedVersion the version the statistics were computed over
 * @param analyzedMillis when they were stored
 * @param rowCount the table's rows at that version
 * @param nonNullCount rows with a value in the column then
 * @param distinctCount distinct values among them (an estimate)
 */
public record AnalyzedColumn(int ordinal, long analyzedVersion, long analyzedMillis, long rowCount, long nonNullCount, long distinctCount)
{
    public AnalyzedColumn
    {
        checkArgument(ordinal >= 0, "ordinal is negative");
        checkArgument(analyzedVersion >= 1, "analyzedVersion is below 1");
    }
}

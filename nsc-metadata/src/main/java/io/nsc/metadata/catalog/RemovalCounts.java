package io.nsc.metadata.catalog;

/**
 * What a DELETE's commit took out of its table.
 *
 * @param filesRemoved files removed in the metadata alone (row groups that emptied a file included)
 * @param filesRewritten files replaced by the commit's new files
 * @param rowGroupsRemoved row groups removed from files that stay
 * @param rowsRemoved the rows the table lost: those of the removed files and row groups, and those
 *        of the rewritten files that the new files do not hold
 */
public record RemovalCounts(int filesRemoved, int filesRewritten, int rowGroupsRemoved, long rowsRemoved)
{
    public static final RemovalCounts NONE = new RemovalCounts(0, 0, 0, 0);
}

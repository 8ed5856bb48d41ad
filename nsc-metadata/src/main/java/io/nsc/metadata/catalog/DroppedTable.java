package io.nsc.metadata.catalog;

/**
 * A table that was dropped.
 *
 * @param filesReleased files that were committed to it; kept for the table version retention,
 *        after which no table claims them any more and their storage nodes may reclaim them
 *        (see {@link AllocationCatalog#findOrphans})
 */
public record DroppedTable(long tableId, int filesReleased) {}

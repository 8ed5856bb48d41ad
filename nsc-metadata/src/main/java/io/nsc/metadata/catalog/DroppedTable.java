package io.nsc.metadata.catalog;

/**
 * A table that was dropped.
 *
 * @param filesReleased files that were committed to it; no table claims them any more, so their
 *        storage nodes may reclaim them (see {@link CatalogStore#findOrphans})
 */
public record DroppedTable(long tableId, int filesReleased) {}

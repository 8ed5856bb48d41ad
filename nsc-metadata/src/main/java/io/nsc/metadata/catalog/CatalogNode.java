package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * A storage node as the catalog has it, for every metadata service over the catalog to share:
 * what it last reported ({@link NodeEntry#lastHeartbeatMillis} says when), and whether it is
 * being drained.
 */
public record CatalogNode(NodeEntry entry, boolean draining)
{
    public CatalogNode
    {
        requireNonNull(entry, "entry is null");
    }
}

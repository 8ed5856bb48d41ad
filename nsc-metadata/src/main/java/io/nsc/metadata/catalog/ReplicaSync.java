package io.nsc.metadata.catalog;

/**
 * What registering a node changed in the replica placement of committed files.
 *
 * @param added files the node reported that the catalog did not list on it, or listed as missing
 * @param removed files the catalog listed on the node that the node no longer reported: marked
 *        missing, not forgotten (see {@link NodeCatalog#registerNode})
 */
public record ReplicaSync(int added, int removed) {}

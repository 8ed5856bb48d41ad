package io.nsc.metadata.catalog;

/**
 * What registering a node changed in the replica placement of committed files.
 *
 * @param added files the node reported that the catalog did not list on it
 * @param removed files the catalog listed on the node that the node no longer reported
 */
public record ReplicaSync(int added, int removed) {}

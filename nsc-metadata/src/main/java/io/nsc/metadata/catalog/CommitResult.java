package io.nsc.metadata.catalog;

public record CommitResult(long tableId, long version, boolean tableCreated) {}

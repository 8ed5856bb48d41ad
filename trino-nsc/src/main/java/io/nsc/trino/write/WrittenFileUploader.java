package io.nsc.trino.write;

import io.nsc.trino.write.LocalParquetFile.Written;

/**
 * Where a page sink sends each file it finished writing locally: to the storage nodes
 * ({@link ReplicaUploader}). The returned fragment names the uploaded file for the commit.
 */
public interface WrittenFileUploader
{
    NscWriteFragment upload(Written file, int replication, int minReplicas);
}

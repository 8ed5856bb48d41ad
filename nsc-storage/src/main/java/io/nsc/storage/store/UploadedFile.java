package io.nsc.storage.store;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.parquet.ColumnSpec;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The outcome of a successful upload: the stored file and the schema the writer needs to commit it. */
public record UploadedFile(StoredFile file, List<ColumnSpec> columns)
{
    public UploadedFile
    {
        requireNonNull(file, "file is null");
        columns = ImmutableList.copyOf(columns);
    }
}

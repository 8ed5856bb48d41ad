package io.nsc.storage.scan;

import com.google.protobuf.ByteString;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.FileUpload;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoreOptions;
import io.nsc.storage.store.StoredFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static io.nsc.storage.server.StorageTesting.fixture;
import static java.util.Objects.requireNonNull;

/** A store in a test's directory serving all_types.parquet: a real stored file for the scan's parts to open, read and quarantine. */
record StoredAllTypes(ParquetFileStore store, StoredFile file)
{
    static final String ID = "00112233445566778899aabbccddeeff";

    StoredAllTypes
    {
        requireNonNull(store, "store is null");
        requireNonNull(file, "file is null");
    }

    static StoredAllTypes in(Path directory)
            throws IOException
    {
        ParquetFileStore store = ParquetFileStore.open(List.of(directory), StoreOptions.DEFAULT);
        byte[] data = fixture("all_types.parquet");
        try (FileUpload upload = store.beginUpload(new FileId(ID), data.length, "all_types.parquet")) {
            upload.write(ByteString.copyFrom(data));
            return new StoredAllTypes(store, upload.finish().file());
        }
    }
}

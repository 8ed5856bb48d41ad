package io.nsc.storage.store;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.parquet.ParquetLimits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.io.MoreFiles.deleteRecursively;

/**
 * Coverage-guided fuzzing of what a storage node does before it acknowledges an upload: the
 * whole file goes through {@link FileUpload} into a real {@link ParquetFileStore}, whose finish
 * parses the footer and validates every page header. Every input must be stored or refused with
 * INVALID_ARGUMENT; anything else (another status, an unexpected exception, an OutOfMemoryError
 * on the fork's small heap) is a finding.
 * <p>
 * {@code ./nsc test} fuzzes for a few seconds; {@code ./nsc fuzz upload --duration 10m} for longer.
 */
class UploadValidatorFuzzTest
{
    private static final ParquetLimits LIMITS = new ParquetLimits(4 * 1024 * 1024, 4 * 1024 * 1024);

    private static Path directory;
    private static ParquetFileStore store;
    private static final AtomicLong uploads = new AtomicLong();

    @BeforeAll
    static void openStore()
            throws IOException
    {
        directory = Files.createTempDirectory("nsc-upload-fuzz");
        store = ParquetFileStore.open(List.of(directory), StoreOptions.DEFAULT.withLimits(LIMITS));
    }

    @AfterAll
    static void deleteStore()
            throws IOException
    {
        deleteRecursively(directory);
    }

    @FuzzTest(maxDuration = "15s")
    void fuzz(byte[] data)
            throws IOException
    {
        FileId id = new FileId("%032x".formatted(uploads.incrementAndGet()));
        try (FileUpload upload = store.beginUpload(id, data.length, "fuzzed.parquet")) {
            upload.write(ByteString.copyFrom(data));
            upload.finish();
            // accepted: gone again, so that the store stays small
            store.delete(id);
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
                throw e;
            }
        }
    }
}

package io.nsc.storage.store;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

final class TestFileId
{
    private static final String VALID = "0123456789abcdef0123456789abcdef";

    @Test
    void testValid()
    {
        FileId id = FileId.fromClient(VALID);
        assertThat(id.value()).isEqualTo(VALID);
        assertThat(id.shard()).isEqualTo("01");

        DataDirectory directory = new DataDirectory(Path.of("/data/disk1"));
        assertThat(directory.parquetPath(id)).isEqualTo(Path.of("/data/disk1/files/01/" + VALID + ".parquet"));
        assertThat(directory.crcPath(id)).isEqualTo(Path.of("/data/disk1/files/01/" + VALID + ".crc"));
        Path temp = directory.newTempPath(id, ".part");
        assertThat(temp.getParent()).isEqualTo(Path.of("/data/disk1/tmp"));
        assertThat(temp.getFileName().toString()).startsWith(VALID + ".").endsWith(".part");
        assertThat(directory.newTempPath(id, ".part")).isNotEqualTo(temp);
    }

    @Test
    void testInvalid()
    {
        List.of(
                        "",
                        "../../etc/passwd",
                        "../../../../../../../../../etc/passwd",
                        "0123456789ABCDEF0123456789ABCDEF",
                        "0123456789abcdef0123456789abcde",
                        "0123456789abcdef0123456789abcdef0",
                        "0123456789abcdef0123456789abcdeg",
                        "0123456789abcdef/123456789abcdef",
                        "0123456789abcdef\u0000123456789abcdef",
                        "..23456789abcdef0123456789abcdef",
                        " 0123456789abcdef0123456789abcde")
                .forEach(TestFileId::assertInvalid);
    }

    private static void assertInvalid(String value)
    {
        assertThatThrownBy(() -> FileId.fromClient(value))
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                .satisfies(e -> assertThat(e.getStatus().getDescription()).startsWith("Invalid file id"));
        assertThatThrownBy(() -> new FileId(value)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testNull()
    {
        assertThatThrownBy(() -> FileId.fromClient(null))
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }
}

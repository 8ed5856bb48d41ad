package io.nsc.protocol.host;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyDirectory;
import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyFileAttributes;
import static io.nsc.protocol.host.OwnerOnlyFiles.restrict;
import static org.assertj.core.api.Assertions.assertThat;

final class TestOwnerOnlyFiles
{
    @TempDir
    Path temporary;

    @Test
    void testNewDirectoryWithItsParents()
            throws IOException
    {
        Path directory = temporary.resolve("var/storage-1/disk1");
        assertThat(ownerOnlyDirectory(directory)).isEqualTo(directory);
        assertThat(permissions(directory)).isEqualTo("rwx------");
        // parents are made as usual: only the directory itself is the owner's alone
        assertThat(Files.isDirectory(directory.getParent())).isTrue();
    }

    @Test
    void testExistingDirectoryLosesGroupAndOthers()
            throws IOException
    {
        Path directory = Files.createDirectory(temporary.resolve("data"));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path inside = Files.writeString(directory.resolve("file"), "rows");
        ownerOnlyDirectory(directory);
        assertThat(permissions(directory)).isEqualTo("rwx------");
        assertThat(Files.readString(inside)).isEqualTo("rows");
        // called again, at the next start
        ownerOnlyDirectory(directory);
        assertThat(permissions(directory)).isEqualTo("rwx------");
    }

    @Test
    void testRestrictKeepsWhatTheOwnerHas()
            throws IOException
    {
        Path file = Files.writeString(temporary.resolve("audit.log"), "line\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--rw-rw-"));
        restrict(file);
        assertThat(permissions(file)).isEqualTo("r--------");
    }

    @Test
    void testFileCreatedForTheOwnerOnly()
            throws IOException
    {
        Path file = temporary.resolve("secret");
        Files.createFile(file, ownerOnlyFileAttributes(file));
        assertThat(permissions(file)).isEqualTo("rw-------");
    }

    private static String permissions(Path path)
            throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }
}

package io.nsc.storage.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

final class TestDataDirectory
{
    @TempDir
    Path temporary;

    @Test
    void testLayoutIsTheServicesUsersOnly()
            throws IOException
    {
        Path root = temporary.resolve("disk1");
        DataDirectory directory = new DataDirectory(root);
        directory.create();
        assertThat(Files.isDirectory(directory.filesDirectory())).isTrue();
        assertThat(Files.isDirectory(directory.tmpDirectory())).isTrue();
        assertThat(Files.isDirectory(directory.quarantineDirectory())).isTrue();
        // table data is out of other users' reach, whatever the permissions of the files inside
        assertThat(permissions(root)).isEqualTo("rwx------");
    }

    @Test
    void testDirectoryOfAnEarlierVersionIsTightened()
            throws IOException
    {
        Path root = Files.createDirectory(temporary.resolve("disk1"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        new DataDirectory(root).create();
        assertThat(permissions(root)).isEqualTo("rwx------");
    }

    private static String permissions(Path path)
            throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }
}

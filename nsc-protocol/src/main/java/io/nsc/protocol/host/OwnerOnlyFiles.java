package io.nsc.protocol.host;

import com.google.common.collect.ImmutableSet;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static java.nio.file.attribute.PosixFilePermission.GROUP_EXECUTE;
import static java.nio.file.attribute.PosixFilePermission.GROUP_READ;
import static java.nio.file.attribute.PosixFilePermission.GROUP_WRITE;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_READ;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE;

/**
 * Directories and files only the service's own user may read: table data, the catalog, grant
 * secrets, backups and the audit log hold what other users of the machine must not see.
 * A directory is made {@code rwx------} (as HDFS does with a DataNode's data directories), so
 * whatever is created inside it later is out of other users' reach whatever the process's umask;
 * a file that lives elsewhere (an audit log beside other logs) is made {@code rw-------}.
 * Where a file system has no POSIX permissions, nothing is changed.
 */
public final class OwnerOnlyFiles
{
    private static final Set<PosixFilePermission> NOT_THE_OWNER = ImmutableSet.of(
            GROUP_READ, GROUP_WRITE, GROUP_EXECUTE, OTHERS_READ, OTHERS_WRITE, OTHERS_EXECUTE);
    private static final Set<PosixFilePermission> OWNER_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnlyFiles() {}

    /**
     * Creates {@code directory} (its missing parents as usual) readable by its owner only, or
     * takes group and other users' access away from one that exists.
     *
     * @return the directory
     */
    public static Path ownerOnlyDirectory(Path directory)
            throws IOException
    {
        if (!Files.isDirectory(directory)) {
            Path parent = directory.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try {
                Files.createDirectory(directory, attributes(directory.getFileSystem(), OWNER_DIRECTORY));
            }
            catch (FileAlreadyExistsException e) {
                // made meanwhile by another thread or process: tightened below like any existing one
            }
        }
        restrict(directory);
        return directory;
    }

    /** Takes group and other users' access away from {@code path}, a file or a directory. */
    public static void restrict(Path path)
            throws IOException
    {
        PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
        if (view == null) {
            return;
        }
        Set<PosixFilePermission> permissions = view.readAttributes().permissions();
        if (permissions.stream().anyMatch(NOT_THE_OWNER::contains)) {
            Set<PosixFilePermission> owner = permissions.stream()
                    .filter(permission -> !NOT_THE_OWNER.contains(permission))
                    .collect(toImmutableSet());
            view.setPermissions(owner);
        }
    }

    /** The attribute that creates a file {@code rw-------}, for {@code Files.createFile} and the like; none where POSIX permissions do not exist. */
    public static FileAttribute<?>[] ownerOnlyFileAttributes(Path file)
    {
        return attributes(file.getFileSystem(), OWNER_FILE);
    }

    private static FileAttribute<?>[] attributes(FileSystem fileSystem, Set<PosixFilePermission> permissions)
    {
        if (!fileSystem.supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)};
    }
}

package io.tapline.common.security;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files only the service's user can read: files 0600, directories 0700 (run logs, Meltano state
 * backend files, run directories). On a file system without POSIX permissions the files are
 * written with the platform's defaults.
 */
public final class PrivateFiles {

    /** rw------- */
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    /** rwx------ */
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private PrivateFiles() {
    }

    /** Creates {@code dir} and its missing parents, each one created here 0700; existing ones are left as they are. */
    public static Path createDirectories(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath();
        if (Files.isDirectory(abs)) {
            return dir;
        }
        Path parent = abs.getParent();
        if (parent != null) {
            createDirectories(parent);
        }
        try {
            Files.createDirectory(abs, attribute(DIRECTORY));
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(abs)) {
                throw e;
            }
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(abs);
        }
        return dir;
    }

    /** Opens {@code file} for appending, creating it 0600 (an existing file is made 0600). */
    public static OutputStream append(Path file) throws IOException {
        createPrivate(file);
        return Files.newOutputStream(file, StandardOpenOption.APPEND);
    }

    /**
     * Opens {@code file} as a channel for appending (writes go to the end), creating it 0600 (an
     * existing file is made 0600); the channel can also truncate the file back to a known length.
     */
    public static java.nio.channels.FileChannel appendChannel(Path file) throws IOException {
        createPrivate(file);
        return java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    private static void createPrivate(Path file) throws IOException {
        if (!Files.exists(file)) {
            try {
                Files.createFile(file, attribute(FILE));
            } catch (FileAlreadyExistsException ignored) {
                // created meanwhile; made private below
            } catch (UnsupportedOperationException e) {
                Files.createFile(file);
            }
        }
        restrict(file, FILE);
    }

    /** Writes {@code text} (UTF-8) to {@code file} atomically (temporary file, then rename), 0600. */
    public static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, attribute(FILE));
        } catch (UnsupportedOperationException e) {
            Files.createFile(tmp);
        }
        Files.writeString(tmp, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Sets {@code perms} on {@code path} where the file system supports POSIX permissions. */
    public static void restrict(Path path, Set<PosixFilePermission> perms) throws IOException {
        try {
            Files.setPosixFilePermissions(path, perms);
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> attribute(Set<PosixFilePermission> perms) {
        return PosixFilePermissions.asFileAttribute(perms);
    }
}

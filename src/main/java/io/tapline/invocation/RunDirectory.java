package io.tapline.invocation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A run's private working directory {@code <runs-dir>/<run-id>/} (mode 0700), holding its config,
 * catalog and state files (mode 0600). Deleted with everything in it when the run ends, so config
 * with resolved secrets never outlives the run.
 */
public final class RunDirectory implements AutoCloseable {

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private final Path dir;

    private RunDirectory(Path dir) {
        this.dir = dir;
    }

    /** Creates {@code <root>/<runId>} with mode 0700 (the root is created when missing). */
    public static RunDirectory create(Path root, UUID runId) throws IOException {
        Files.createDirectories(root);
        Path dir = root.resolve(runId.toString()).toAbsolutePath();
        if (POSIX) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR));
            Files.setPosixFilePermissions(dir, DIR);
        } else {
            Files.createDirectory(dir);
        }
        return new RunDirectory(dir);
    }

    /** The directory. */
    public Path path() {
        return dir;
    }

    /**
     * Writes a file with mode 0600 (created new: a name is written once per run).
     *
     * @return its absolute path
     */
    public Path write(String name, String content) throws IOException {
        Path file = create(name);
        Files.writeString(file, content, StandardCharsets.UTF_8, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        return file;
    }

    /** Writes a file the way {@link #write(String, String)} does, its bytes from {@code content}. */
    public Path write(String name, Content content) throws IOException {
        Path file = create(name);
        try (java.io.OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING), 65536)) {
            content.writeTo(out);
        }
        return file;
    }

    /** Writes the bytes of a file ({@link #write(String, Content)}). */
    @FunctionalInterface
    public interface Content {
        /** Writes the content to {@code out} (not closed). */
        void writeTo(java.io.OutputStream out) throws IOException;
    }

    /** Creates the (empty) file {@code name} in the directory, 0600. */
    private Path create(String name) throws IOException {
        Path file = dir.resolve(name);
        if (!file.getParent().equals(dir)) {
            throw new IllegalArgumentException("file name must be a plain name: " + name);
        }
        if (POSIX) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
        } else {
            Files.createFile(file);
        }
        return file;
    }

    /** Deletes the directory and everything in it. */
    @Override
    public void close() throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

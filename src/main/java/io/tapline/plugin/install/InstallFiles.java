package io.tapline.plugin.install;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * File operations of the service on environments that the install user wrote
 * ({@code tapline.runner.run-as-user}): that user may have put symbolic links anywhere in them, so
 * the service never follows a link inside an environment. Trees are deleted through
 * {@link SecureDirectoryStream} (each directory opened without following links, entries removed
 * relative to it: a directory swapped for a link mid-delete fails the delete instead of reaching
 * outside), and files are read without following a final link and only up to a size.
 */
final class InstallFiles {

    private InstallFiles() {
    }

    /** Deletes a directory tree without following symbolic links; missing is fine. */
    static void deleteTree(Path p) throws IOException {
        Path abs = p.toAbsolutePath();
        if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(abs, LinkOption.NOFOLLOW_LINKS) || abs.getParent() == null) {
            Files.deleteIfExists(abs);
            return;
        }
        try (DirectoryStream<Path> parent = Files.newDirectoryStream(abs.getParent())) {
            if (parent instanceof SecureDirectoryStream<Path> secure) {
                delete(secure, abs.getFileName());
                return;
            }
        }
        try (Stream<Path> s = Files.walk(abs)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(q);
            }
        }
    }

    private static void delete(SecureDirectoryStream<Path> parent, Path name) throws IOException {
        BasicFileAttributes a = parent.getFileAttributeView(name, BasicFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS).readAttributes();
        if (!a.isDirectory()) {
            parent.deleteFile(name);
            return;
        }
        try (SecureDirectoryStream<Path> dir = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
            List<Path> entries = new ArrayList<>();
            for (Path e : dir) {
                entries.add(e.getFileName());
            }
            for (Path e : entries) {
                delete(dir, e);
            }
        }
        parent.deleteDirectory(name);
    }

    /**
     * The text (UTF-8) of a regular file, read without following a final symbolic link.
     *
     * @param max the largest size read, in bytes
     * @return empty when it is missing, not a regular file, a link, or larger than {@code max}
     */
    static Optional<String> readSmall(Path file, int max) {
        try {
            // looked at before opening: opening a FIFO would block
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || a.size() > max) {
                return Optional.empty();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            InputStream in = Channels.newInputStream(ch);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
                if (out.size() > max) {
                    return Optional.empty();
                }
            }
            return Optional.of(out.toString(StandardCharsets.UTF_8));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }
}

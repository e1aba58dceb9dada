package io.tapline.state.mirror;

import io.tapline.common.security.PrivateFiles;
import io.tapline.state.store.StateChecks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A Meltano local-filesystem state backend directory ({@code state_backend.uri: file:///root}),
 * laid out exactly as Meltano 4.2.2 does on POSIX (meltano-state.md §1d):
 * {@code <root>/<state_id>/state.json} holding {@code {"completed": ..., "partial": ...}} and,
 * while an update runs, {@code <root>/<state_id>/lock} holding the epoch seconds as a Python float.
 *
 * <p>Does better than Meltano where it is unsafe: state IDs that are not one safe directory name
 * are refused ({@link StateChecks#stateIdForFiles}); writes go to {@code state.json.tmp}, are fsynced and
 * renamed over {@code state.json}, so a reader never sees a partial file; the lock is removed only
 * after the rename (§6.7, §6.8). A lock younger than the timeout is honoured (we wait, retrying
 * every second, like Meltano); an older one is treated as stale and replaced.
 */
public final class MeltanoBackendDirectory {

    /** Name of the state file inside a state ID's directory. */
    public static final String STATE_FILE = "state.json";
    /** Name of the lock file inside a state ID's directory. */
    public static final String LOCK_FILE = "lock";

    private final Path root;
    private final Duration lockTimeout;
    private final Duration lockRetry;
    private final Clock clock;

    /**
     * @param root the backend root, i.e. the path of the {@code file://} URI
     * @param lockTimeout age after which a lock is stale (Meltano's {@code lock_timeout_seconds}, default 10 s)
     * @param lockRetry wait between checks of a held lock (Meltano: 1 s)
     */
    public MeltanoBackendDirectory(Path root, Duration lockTimeout, Duration lockRetry, Clock clock) {
        this.root = root.toAbsolutePath().normalize();
        this.lockTimeout = lockTimeout;
        this.lockRetry = lockRetry;
        this.clock = clock;
    }

    /** The backend root. */
    public Path root() {
        return root;
    }

    /** The directory of a state ID, checked to be one safe name directly below the root. */
    public Path dir(String stateId) {
        StateChecks.stateIdForFiles("stateId", stateId);
        Path dir = root.resolve(stateId).normalize();
        if (!root.equals(dir.getParent())) {
            throw new IllegalArgumentException("state ID escapes the backend root");
        }
        return dir;
    }

    /**
     * Writes {@code stateJson} (the exact bytes of Meltano's {@code state.json}) under the lock,
     * through a temporary file, fsync and atomic rename.
     *
     * @throws LockTimeoutException when a fresh lock stays held longer than the lock timeout
     */
    public void write(String stateId, String stateJson) throws IOException {
        withLock(stateId, () -> {
            writeLocked(stateId, stateJson);
            return null;
        });
    }

    /**
     * Runs {@code action} while holding the state ID's {@code lock} file (created in a new
     * directory when needed), as Meltano's {@code acquire_lock}: a fresh lock of another writer is
     * waited for (every {@code lockRetry}, up to the lock timeout), a stale one replaced. The lock
     * is removed afterwards, also when {@code action} fails, and so is the directory when the
     * action left it empty.
     *
     * @throws LockTimeoutException when a fresh lock stays held longer than the lock timeout
     */
    public <T> T withLock(String stateId, LockedAction<T> action) throws IOException {
        Lock lock = lock(stateId);
        try {
            return action.run();
        } finally {
            lock.release();
        }
    }

    /**
     * Takes the state ID's {@code lock} file (created in a new directory when needed) as
     * {@link #withLock} does, for a holder that releases it later: a state write holds it from its
     * look at the file until the file has been rewritten after the commit.
     *
     * @throws LockTimeoutException when a fresh lock stays held longer than the lock timeout
     */
    public Lock lock(String stateId) throws IOException {
        Path dir = dir(stateId);
        PrivateFiles.createDirectories(dir);
        return new Lock(dir, acquire(dir));
    }

    /** A held {@code lock} file of one state ID ({@link #lock}). */
    public static final class Lock {
        private final Path dir;
        private final Path file;
        private final String content;

        private Lock(Path dir, Path file) throws IOException {
            this.dir = dir;
            this.file = file;
            this.content = Files.readString(file, StandardCharsets.US_ASCII);
        }

        /**
         * Removes the lock file, unless another writer replaced it meanwhile (it judged ours stale),
         * and the directory when it is left empty (no state).
         */
        public void release() throws IOException {
            try {
                if (content.equals(Files.readString(file, StandardCharsets.US_ASCII))) {
                    Files.deleteIfExists(file);
                }
            } catch (NoSuchFileException gone) {
                // removed by a writer that judged it stale
            }
            try {
                Files.delete(dir); // only when nothing is left in it (no state)
            } catch (java.nio.file.DirectoryNotEmptyException | NoSuchFileException ignored) {
                // it holds a state.json (or is already gone)
            }
        }
    }

    /**
     * Writes {@code state.json} through a temporary file, fsync and atomic rename; the caller holds
     * the lock ({@link #withLock}).
     */
    public void writeLocked(String stateId, String stateJson) throws IOException {
        Path dir = dir(stateId);
        PrivateFiles.createDirectories(dir);
        Path tmp = dir.resolve(STATE_FILE + ".tmp");
        Files.deleteIfExists(tmp);
        try (FileChannel ch = FileChannel.open(tmp, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PrivateFiles.FILE))) {
            ByteBuffer buf = ByteBuffer.wrap(stateJson.getBytes(StandardCharsets.US_ASCII));
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, dir.resolve(STATE_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(STATE_FILE), StandardCopyOption.REPLACE_EXISTING);
        }
        fsyncDir(dir);
    }

    /** The raw bytes of a state ID's {@code state.json}, or empty when it has none. */
    public Optional<byte[]> readBytes(String stateId) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(dir(stateId).resolve(STATE_FILE)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * A cheap identity of a state ID's {@code state.json}: equal stamps mean the file was not
     * rewritten in between, unless it was rewritten within the file system's timestamp granularity
     * with the same size (a racy stamp: see {@code MirrorLooks}).
     *
     * @param size the file's size in bytes
     * @param modified its modification time
     * @param fileKey the file system's key of the file (device and inode), or null
     */
    public record Stamp(long size, Instant modified, Object fileKey) {
    }

    /** The stamp of a state ID's {@code state.json} (one {@code stat}), or empty when there is none. */
    public Optional<Stamp> stamp(String stateId) throws IOException {
        try {
            var a = Files.readAttributes(dir(stateId).resolve(STATE_FILE),
                    java.nio.file.attribute.BasicFileAttributes.class);
            return Optional.of(new Stamp(a.size(), a.lastModifiedTime().toInstant(), a.fileKey()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The bytes of a state ID's {@code state.json}, or empty when it has none (no state). */
    public Optional<String> read(String stateId) throws IOException {
        try {
            return Optional.of(Files.readString(dir(stateId).resolve(STATE_FILE), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Removes a state ID's state under the lock, as {@code meltano state clear} does, but only the
     * files this backend writes ({@code state.json}, its temporary file and the lock): the
     * directory itself goes only when nothing else is left in it.
     */
    public void delete(String stateId) throws IOException {
        Path dir = dir(stateId);
        if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Path lock = acquire(dir);
        Files.deleteIfExists(dir.resolve(STATE_FILE));
        Files.deleteIfExists(dir.resolve(STATE_FILE + ".tmp"));
        Files.deleteIfExists(lock);
        try {
            Files.deleteIfExists(dir);
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // files Tapline did not write stay where they are
        }
    }

    /**
     * The state IDs of the directory, sorted: the directories directly below the root that
     * contain {@code state.json} (Meltano's {@code glob(<root>/*}{@code /state.json)}); names that
     * are not safe state IDs are skipped.
     */
    public List<String> list() throws IOException {
        List<String> ids = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return ids;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (!name.startsWith(".") && Files.isRegularFile(p.resolve(STATE_FILE))) {
                    ids.add(name);
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /** The content Meltano writes into a lock file: epoch seconds as Python's float repr. */
    public static String lockContent(Instant now) {
        long seconds = now.getEpochSecond();
        int micros = now.getNano() / 1000;
        if (micros == 0) {
            return seconds + ".0";
        }
        String frac = String.format("%06d", micros);
        int end = frac.length();
        while (frac.charAt(end - 1) == '0') {
            end--;
        }
        return seconds + "." + frac.substring(0, end);
    }

    private Path acquire(Path dir) throws IOException {
        Path lock = dir.resolve(LOCK_FILE);
        Instant deadline = clock.instant().plus(lockTimeout).plus(lockRetry);
        while (true) {
            try {
                create(dir, lock);
                return lock;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                Held held = held(lock);
                if (held == Held.GONE) {
                    continue;
                }
                if (held == Held.STALE) {
                    Files.deleteIfExists(lock);
                    continue;
                }
                if (clock.instant().isAfter(deadline)) {
                    throw new LockTimeoutException("State ID directory " + dir.getFileName()
                            + " is locked by another writer (lock file " + quoted(lock) + ")");
                }
                try {
                    Thread.sleep(lockRetry.toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for the state lock", ie);
                }
            }
        }
    }

    /**
     * Creates the lock file with its content in one step: written to a file of its own, then hard
     * linked as {@code lock} (which fails when a lock exists), so no reader ever sees an empty lock
     * (Meltano's {@code float()} of an empty lock raises). Where hard links are not supported, the
     * lock is created and written in two steps, as Meltano does.
     *
     * @throws java.nio.file.FileAlreadyExistsException when a lock exists
     */
    private void create(Path dir, Path lock) throws IOException {
        String content = lockContent(clock.instant());
        Path own = dir.resolve(LOCK_FILE + "." + java.util.UUID.randomUUID() + ".tmp");
        Files.writeString(own, content, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        try {
            Files.createLink(lock, own);
        } catch (UnsupportedOperationException | java.nio.file.FileSystemException e) {
            if (e instanceof java.nio.file.FileAlreadyExistsException exists) {
                throw exists;
            }
            Files.writeString(lock, content, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
        } finally {
            Files.deleteIfExists(own);
        }
    }

    /** What a look at an existing lock file found. */
    private enum Held { HELD, STALE, GONE }

    /**
     * Whether a lock file is held, by Meltano's rule: its content read as Python's {@code float()}
     * is at least now minus the lock timeout ({@code inf} is held forever, {@code nan} never).
     * A file that is empty or holds no number is a writer between creating and writing it (Meltano
     * creates the file, then writes it): held while the file itself is younger than the timeout.
     */
    private Held held(Path lock) {
        String text;
        java.nio.file.attribute.FileTime modified;
        try {
            text = Files.readString(lock, StandardCharsets.US_ASCII);
            modified = Files.getLastModifiedTime(lock);
        } catch (NoSuchFileException e) {
            return Held.GONE;
        } catch (IOException e) {
            return Held.HELD; // unreadable: never removed on a guess
        }
        double oldest = (clock.millis() - lockTimeout.toMillis()) / 1000.0;
        double seconds = pythonFloat(text);
        if (Double.isNaN(seconds) && !isNanLiteral(text)) {
            seconds = modified.toMillis() / 1000.0; // empty or not a number: the file's own age
        }
        return seconds >= oldest ? Held.HELD : Held.STALE;
    }

    /**
     * Python's {@code float(text)}: surrounding whitespace, {@code _} between digits, {@code inf},
     * {@code infinity} and {@code nan} in any letter case; NaN when Python would raise.
     */
    static double pythonFloat(String text) {
        String s = text.strip().toLowerCase(java.util.Locale.ROOT);
        String unsigned = s.startsWith("+") || s.startsWith("-") ? s.substring(1) : s;
        boolean negative = s.startsWith("-");
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (unsigned.equals("nan")) {
            return Double.NaN;
        }
        if (!s.matches("[+-]?(\\d(_?\\d)*(\\.(\\d(_?\\d)*)?)?|\\.\\d(_?\\d)*)(e[+-]?\\d(_?\\d)*)?")) {
            return Double.NaN;
        }
        return Double.parseDouble(s.replace("_", ""));
    }

    private static boolean isNanLiteral(String text) {
        String s = text.strip().toLowerCase(java.util.Locale.ROOT);
        return s.equals("nan") || s.equals("+nan") || s.equals("-nan");
    }

    private static String quoted(Path lock) {
        try {
            String s = Files.readString(lock, StandardCharsets.US_ASCII).strip();
            return "'" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "'";
        } catch (IOException e) {
            return "(unreadable)";
        }
    }

    private static void fsyncDir(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // not supported on every file system; the rename itself is atomic
        }
    }

    /** Work done while a state ID's lock file is held. */
    @FunctionalInterface
    public interface LockedAction<T> {
        /** Does the work; may throw I/O errors, which reach the caller after the lock is removed. */
        T run() throws IOException;
    }

    /** A fresh lock held by another writer did not go away within the lock timeout. */
    public static class LockTimeoutException extends IOException {
        public LockTimeoutException(String message) {
            super(message);
        }
    }
}

package io.tapline.common.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Two instances on one embedded data directory (dev mode and the packaged service share
 * {@code .tapline/pgdata}): the second gets one sentence naming the directory and the setting,
 * not zonky's "could not lock" stack trace.
 */
class EmbeddedDatabaseLockTest {

    @Test
    void aDirectoryLockedByAnotherProcessIsReportedInOneSentence(@TempDir Path dir) throws Exception {
        Path lock = dir.resolve(EmbeddedDatabase.LOCK_FILE);
        Process holder = new ProcessBuilder("python3", "-c", "import fcntl, sys\n"
                + "f = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                + "print('locked', flush=True)\nsys.stdin.read()\n", lock.toString()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", out.readLine());
            EmbeddedDatabase.DirectoryInUseException e = assertThrows(EmbeddedDatabase.DirectoryInUseException.class,
                    () -> EmbeddedDatabase.checkNotInUse(dir));
            assertEquals("The embedded PostgreSQL data directory " + dir + " is in use by another process (dev mode"
                    + " and the packaged service share it by default): stop that process, or set"
                    + " TAPLINE_DATABASE_EMBEDDED_DIR (tapline.database.embedded-dir) to another directory.",
                    e.getMessage());
        } finally {
            holder.getOutputStream().close();
            holder.waitFor();
        }
        // Once the other process is gone the directory is free again.
        assertDoesNotThrow(() -> EmbeddedDatabase.checkNotInUse(dir));
        assertDoesNotThrow(() -> EmbeddedDatabase.checkNotInUse(Files.createDirectories(dir.resolve("fresh"))));
    }
}

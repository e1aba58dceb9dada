package io.tapline.state.mirror;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 items 7 and 12: a backend directory's {@code state.json} is 0600 in a 0700 directory,
 * and removing a state ID's state removes only the files the backend writes: files someone else
 * keeps in a directory named like the state ID survive (the old code deleted the whole tree).
 */
class BackendDirectoryHygieneTest {

    @TempDir
    Path root;

    private MeltanoBackendDirectory dir() {
        return new MeltanoBackendDirectory(root, Duration.ofSeconds(10), Duration.ofMillis(50), Clock.systemUTC());
    }

    @Test
    void stateFilesArePrivate() throws Exception {
        dir().write("dev:tap-a-to-target-b", "{\"completed\": {}, \"partial\": {}}");
        Path d = root.resolve("dev:tap-a-to-target-b");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d.resolve("state.json"))));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
    }

    @Test
    void removingAStateLeavesFilesTaplineDidNotWrite() throws Exception {
        Path d = Files.createDirectories(root.resolve("dev:tap-a-to-target-b"));
        Files.writeString(d.resolve("notes.txt"), "someone else's file");
        Files.createDirectories(d.resolve("data")).resolve("keep.csv").toFile().createNewFile();
        dir().write("dev:tap-a-to-target-b", "{\"completed\": {}, \"partial\": {}}");
        dir().delete("dev:tap-a-to-target-b");
        assertFalse(Files.exists(d.resolve("state.json")));
        assertFalse(Files.exists(d.resolve("lock")));
        assertTrue(Files.exists(d.resolve("notes.txt")), "a foreign file survives");
        assertTrue(Files.exists(d.resolve("data/keep.csv")), "a foreign directory survives");

        // a directory that only held the backend's files goes away
        dir().write("dev:tap-c-to-target-d", "{\"completed\": {}, \"partial\": {}}");
        dir().delete("dev:tap-c-to-target-d");
        assertFalse(Files.exists(root.resolve("dev:tap-c-to-target-d")));
    }
}

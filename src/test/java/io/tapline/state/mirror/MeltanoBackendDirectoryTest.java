package io.tapline.state.mirror;

import io.tapline.common.error.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MeltanoBackendDirectoryTest {

    @TempDir
    Path root;

    private MeltanoBackendDirectory dir(Duration timeout) {
        return new MeltanoBackendDirectory(root, timeout, Duration.ofMillis(50), Clock.systemUTC());
    }

    @Test
    void lockContentIsPythonsFloatReprOfEpochSeconds() {
        assertEquals("1704067200.0", MeltanoBackendDirectory.lockContent(Instant.parse("2024-01-01T00:00:00Z")));
        assertEquals("1704067200.123456", MeltanoBackendDirectory.lockContent(Instant.parse("2024-01-01T00:00:00.123456Z")));
        assertEquals("1704067200.1", MeltanoBackendDirectory.lockContent(Instant.parse("2024-01-01T00:00:00.1Z")));
    }

    @Test
    void writesStateJsonVerbatimUnderTheStateIdAndRemovesTheLock() throws Exception {
        String json = "{\"completed\": {\"singer_state\": {\"a\": 1}}, \"partial\": {}}";
        dir(Duration.ofSeconds(10)).write("dev:tap-a-to-target-b", json);
        Path file = root.resolve("dev:tap-a-to-target-b/state.json");
        assertEquals(json, Files.readString(file, StandardCharsets.US_ASCII));
        assertFalse(Files.exists(root.resolve("dev:tap-a-to-target-b/lock")));
        assertFalse(Files.exists(root.resolve("dev:tap-a-to-target-b/state.json.tmp")));
        assertEquals(List.of("dev:tap-a-to-target-b"), dir(Duration.ofSeconds(10)).list());
        assertEquals(json, dir(Duration.ofSeconds(10)).read("dev:tap-a-to-target-b").orElseThrow());
    }

    @Test
    void aStaleLockIsReplacedAndAFreshOneIsHonoured() throws Exception {
        Path d = Files.createDirectories(root.resolve("x"));
        Files.writeString(d.resolve("lock"), MeltanoBackendDirectory.lockContent(Instant.now().minusSeconds(60)));
        dir(Duration.ofSeconds(10)).write("x", "{\"completed\": {}, \"partial\": {}}");
        assertFalse(Files.exists(d.resolve("lock")));

        // a fresh lock is honoured until its holder removes it
        Files.writeString(d.resolve("lock"), MeltanoBackendDirectory.lockContent(Instant.now()));
        java.util.concurrent.CompletableFuture<Void> release = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(300);
                Files.writeString(d.resolve("state.json"), "{\"completed\": {\"by\": \"holder\"}, \"partial\": {}}");
                Files.delete(d.resolve("lock"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long t0 = System.nanoTime();
        dir(Duration.ofSeconds(10)).write("x", "{\"completed\": {\"a\": 1}, \"partial\": {}}");
        release.join();
        assertTrue(System.nanoTime() - t0 >= 250_000_000L, "waited for the holder");
        assertEquals("{\"completed\": {\"a\": 1}, \"partial\": {}}", Files.readString(d.resolve("state.json")));

        // a lock stamped in the future (clock skew) is not waited for forever
        Files.writeString(d.resolve("lock"), MeltanoBackendDirectory.lockContent(Instant.now().plusSeconds(3600)));
        assertThrows(MeltanoBackendDirectory.LockTimeoutException.class,
                () -> dir(Duration.ofMillis(300)).write("x", "{\"completed\": {\"b\": 1}, \"partial\": {}}"));
        assertEquals("{\"completed\": {\"a\": 1}, \"partial\": {}}", Files.readString(d.resolve("state.json")),
                "a writer that did not get the lock changed nothing");
    }

    @Test
    void aLockIsReadAsPythonsFloatAndAnEmptyOneIsAWriterStillWritingIt() throws Exception {
        assertEquals(1704067200.5, MeltanoBackendDirectory.pythonFloat(" 1704067200.5\n"));
        assertEquals(1_000.5, MeltanoBackendDirectory.pythonFloat("1_000.5"));
        assertEquals(Double.POSITIVE_INFINITY, MeltanoBackendDirectory.pythonFloat("inf"));
        assertEquals(Double.POSITIVE_INFINITY, MeltanoBackendDirectory.pythonFloat("1e400"));
        assertEquals(Double.NEGATIVE_INFINITY, MeltanoBackendDirectory.pythonFloat("-Infinity"));
        for (String notAFloat : new String[] {"", "abc", "0x10", "1d", "1__0", "_1", "1e", "."}) {
            assertTrue(Double.isNaN(MeltanoBackendDirectory.pythonFloat(notAFloat)), notAFloat);
        }
        Path d = Files.createDirectories(root.resolve("y"));
        Path lock = d.resolve("lock");
        String json = "{\"completed\": {}, \"partial\": {}}";
        // an empty lock file is a writer between creating and writing it: waited for until it is as
        // old as the lock timeout
        Files.writeString(lock, "");
        long t0 = System.nanoTime();
        dir(Duration.ofMillis(400)).write("y", json);
        assertTrue(System.nanoTime() - t0 >= 300_000_000L, "an empty fresh lock was waited for");
        assertFalse(Files.exists(lock));
        // held forever: inf, 1e400 (Python's float is inf)
        for (String held : new String[] {"inf", "1e400"}) {
            Files.writeString(lock, held);
            assertThrows(MeltanoBackendDirectory.LockTimeoutException.class, () -> dir(Duration.ofMillis(300)).write("y", json),
                    "'" + held + "' is held");
            assertTrue(Files.exists(lock), "a held lock is left alone: '" + held + "'");
        }
        // stale: nan (Python's comparison is false), an empty lock file older than the timeout
        Files.writeString(lock, "nan");
        dir(Duration.ofSeconds(10)).write("y", json);
        assertFalse(Files.exists(lock));
        Files.writeString(lock, "");
        Files.setLastModifiedTime(lock, java.nio.file.attribute.FileTime.from(Instant.now().minusSeconds(60)));
        dir(Duration.ofSeconds(10)).write("y", json);
        assertFalse(Files.exists(lock));
    }

    @Test
    void aLockTakenAndReplacedByAnotherWriterIsNotRemovedByTheFirst() throws Exception {
        MeltanoBackendDirectory d = dir(Duration.ofSeconds(10));
        MeltanoBackendDirectory.Lock mine = d.lock("z");
        Path lock = root.resolve("z/lock");
        // created with its content in one step (hard link of a file of its own, which is gone again)
        assertTrue(MeltanoBackendDirectory.pythonFloat(Files.readString(lock)) > 1.7e9);
        try (var files = Files.list(root.resolve("z"))) {
            assertEquals(List.of(lock), files.toList());
        }
        // another writer judged it stale and took it
        Files.writeString(lock, MeltanoBackendDirectory.lockContent(Instant.now().plusSeconds(1)));
        String theirs = Files.readString(lock);
        mine.release();
        assertEquals(theirs, Files.readString(lock), "the other writer's lock stays");
    }

    @Test
    void unsafeStateIdsAreRefusedBeforeAnyFileIsWritten() {
        for (String bad : new String[] {"../escape", "a/b", ".hidden", "..", "x".repeat(300)}) {
            assertThrows(InvalidInputException.class, () -> dir(Duration.ofSeconds(1)).write(bad, "{}"), bad);
        }
        assertTrue(root.toFile().list().length == 0);
    }

    @Test
    void deleteRemovesTheDirectoryAndListSkipsDirectoriesWithoutStateJson() throws Exception {
        MeltanoBackendDirectory d = dir(Duration.ofSeconds(10));
        d.write("a", "{\"completed\": {}, \"partial\": {}}");
        Files.createDirectories(root.resolve("empty"));
        assertEquals(List.of("a"), d.list());
        d.delete("a");
        assertFalse(Files.exists(root.resolve("a")));
        assertTrue(d.read("a").isEmpty());
    }
}

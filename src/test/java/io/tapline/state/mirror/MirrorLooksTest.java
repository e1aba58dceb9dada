package io.tapline.state.mirror;

import io.tapline.support.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MirrorLooks} trusts a file's stamp (size, modification time, file key) only when the file
 * was modified well before the look that verified it: a file rewritten in place with the same size
 * within the file system's timestamp granularity keeps its stamp, and is compared by content.
 */
class MirrorLooksTest {

    private static final String ID = "dev:tap-a-to-target-b";

    @TempDir
    Path root;

    private MeltanoBackendDirectory dir() {
        return new MeltanoBackendDirectory(root, Duration.ofSeconds(5), Duration.ofMillis(50), Clock.systemUTC());
    }

    private Path file() {
        return root.resolve(ID).resolve(MeltanoBackendDirectory.STATE_FILE);
    }

    /** Rewrites the file in place with {@code text} and gives it back the modification time {@code at}. */
    private void rewriteKeepingStamp(String text, FileTime at) throws Exception {
        Files.writeString(file(), text, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        Files.setLastModifiedTime(file(), at);
    }

    @Test
    void aSameSizeRewriteWithinTheGranularityOfTheLookIsSeenAlthoughTheStampIsEqual() throws Exception {
        MeltanoBackendDirectory dir = dir();
        dir.write(ID, "{\"v\": 1}");
        FileTime at = Files.getLastModifiedTime(file());
        MirrorLooks looks = new MirrorLooks(Clock.systemUTC());
        String first = MirrorLooks.look(dir, ID).digest();
        looks.remember(dir, ID, first);
        assertEquals(Optional.of(first), looks.verifiedDigest(dir, ID));

        rewriteKeepingStamp("{\"v\": 2}", at);
        assertEquals(dir.stamp(ID), dir.stamp(ID));
        assertEquals(Optional.empty(), looks.verifiedDigest(dir, ID), "a racy stamp is compared by content");
        assertFalse(looks.unchanged(dir, ID));
    }

    @Test
    void aStampOlderThanTheLookByMoreThanTheGranularityIsTrustedWithoutReading() throws Exception {
        MeltanoBackendDirectory dir = dir();
        dir.write(ID, "{\"v\": 1}");
        FileTime old = FileTime.from(Instant.now().minus(Duration.ofMinutes(1)));
        Files.setLastModifiedTime(file(), old);
        MirrorLooks looks = new MirrorLooks(Clock.systemUTC());
        String first = MirrorLooks.look(dir, ID).digest();
        looks.remember(dir, ID, first);

        // Rewritten with the same size and time: indistinguishable by its stamp, and old enough to be trusted.
        rewriteKeepingStamp("{\"v\": 2}", old);
        assertEquals(Optional.of(first), looks.verifiedDigest(dir, ID));
        assertTrue(looks.unchanged(dir, ID));
    }

    @Test
    void aLookAtARacyStampThatFindsTheSameBytesIsTrustedOnceTheGranularityHasPassed() throws Exception {
        MeltanoBackendDirectory dir = dir();
        dir.write(ID, "{\"v\": 1}");
        Instant written = Files.getLastModifiedTime(file()).toInstant();
        MutableClock clock = new MutableClock(written);
        MirrorLooks looks = new MirrorLooks(clock);
        String first = MirrorLooks.look(dir, ID).digest();
        looks.remember(dir, ID, first);
        // Racy: read and compared (equal), and the look is taken again, now well after the write.
        clock.set(written.plus(MirrorLooks.RACY).plusSeconds(1));
        assertEquals(Optional.of(first), looks.verifiedDigest(dir, ID));
        rewriteKeepingStamp("{\"v\": 2}", FileTime.from(written));
        assertEquals(Optional.of(first), looks.verifiedDigest(dir, ID), "trusted now: the stamp is old enough");
    }

    @Test
    void noFileSeenMatchingNoFingerprintStaysUnchangedUntilAFileAppears() throws Exception {
        MeltanoBackendDirectory dir = dir();
        MirrorLooks looks = new MirrorLooks(Clock.systemUTC());
        assertFalse(looks.unchanged(dir, ID), "nothing was seen yet");
        looks.remember(ID, null, null, Instant.now());
        assertTrue(looks.unchanged(dir, ID));
        dir.write(ID, "{\"v\": 1}");
        assertFalse(looks.unchanged(dir, ID));
    }
}

package io.tapline.state.mirror;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Looks at the state files of the shared Meltano directory for {@link StateMirror}: reads a file
 * with its SHA-256, and remembers per state ID the file last seen to match its fingerprint
 * (its {@link MeltanoBackendDirectory#stamp}, or that there was none), so an unchanged file is not
 * read again.
 *
 * <p>A stamp is trusted only when the file's modification time lies more than {@link #RACY} before
 * the look that verified it: a file rewritten in place with the same size within the file system's
 * timestamp granularity of that look keeps its stamp (a racy stamp, as git calls it), so such a
 * file is read and its digest compared instead, and the look then taken again.
 */
final class MirrorLooks {

    /** Name an unreadable outside file is kept under, beside {@code state.json}. */
    static final String REJECTED_FILE = MeltanoBackendDirectory.STATE_FILE + ".rejected";
    /**
     * How close to the look a modification time makes a stamp untrustworthy: the coarsest common
     * timestamp granularity (2 s on FAT; ext4 and XFS move in clock ticks of a few milliseconds,
     * NFS may report whole seconds), with room for a clock that is not quite in step.
     */
    static final Duration RACY = Duration.ofSeconds(2);

    /**
     * The bytes seen in a state ID's file.
     *
     * @param bytes the file's bytes, null when there is no file
     * @param digest their SHA-256 (hex), null when there is no file
     */
    record Look(byte[] bytes, String digest) {
    }

    /**
     * A file last seen to match its fingerprint.
     *
     * @param stamp its stamp, null when there was no file (and no fingerprint)
     * @param digest its SHA-256, null when there was no file
     * @param lookedAt when the look started (before the file was read)
     */
    private record Seen(MeltanoBackendDirectory.Stamp stamp, String digest, Instant lookedAt) {
    }

    private final Clock clock;
    /** Per state ID, the file last seen to match its fingerprint. */
    private final Map<String, Seen> verified = new ConcurrentHashMap<>();

    MirrorLooks(Clock clock) {
        this.clock = clock;
    }

    /** Reads the file, with its digest (null bytes and digest when there is none). */
    static Look look(MeltanoBackendDirectory dir, String stateId) throws IOException {
        Optional<byte[]> bytes = dir.readBytes(stateId);
        return new Look(bytes.orElse(null), bytes.map(MirrorLooks::sha256).orElse(null));
    }

    /** Without the lock: true when the file may differ from its fingerprint {@code known}. */
    boolean changed(MeltanoBackendDirectory dir, String stateId, String known) throws IOException {
        if (verifiedDigest(dir, stateId).isPresent()) {
            return false;
        }
        return !Objects.equals(look(dir, stateId).digest(), known);
    }

    /**
     * The digest of the state ID's file when it is the file last seen matching its fingerprint:
     * the same stamp, trusted without reading the file when its modification time lies more than
     * {@link #RACY} before that look, else read and compared (and the look taken again when equal).
     * Empty otherwise, and when there is no file.
     */
    Optional<String> verifiedDigest(MeltanoBackendDirectory dir, String stateId) throws IOException {
        Instant now = clock.instant();
        Optional<MeltanoBackendDirectory.Stamp> stamp = dir.stamp(stateId);
        Seen seen = verified.get(stateId);
        if (stamp.isEmpty() || seen == null || seen.stamp() == null || !stamp.get().equals(seen.stamp())) {
            return Optional.empty();
        }
        if (stamp.get().modified().isBefore(seen.lookedAt().minus(RACY))) {
            return Optional.of(seen.digest());
        }
        String digest = look(dir, stateId).digest();
        if (!seen.digest().equals(digest)) {
            return Optional.empty();
        }
        verified.replace(stateId, seen, new Seen(stamp.get(), digest, now));
        return Optional.of(digest);
    }

    /**
     * True when the state ID's file is as last seen matching its fingerprint
     * ({@link #verifiedDigest}), or when there was no file then and there is none now.
     */
    boolean unchanged(MeltanoBackendDirectory dir, String stateId) throws IOException {
        Seen seen = verified.get(stateId);
        if (seen != null && seen.stamp() == null) {
            return dir.stamp(stateId).isEmpty();
        }
        return verifiedDigest(dir, stateId).isPresent();
    }

    /** Notes the file as it now stands, holding {@code digest}, as matching its fingerprint. */
    void remember(MeltanoBackendDirectory dir, String stateId, String digest) {
        Instant now = clock.instant();
        try {
            Optional<MeltanoBackendDirectory.Stamp> stamp = dir.stamp(stateId);
            if (stamp.isPresent() && digest != null) {
                verified.put(stateId, new Seen(stamp.get(), digest, now));
            } else {
                verified.remove(stateId);
            }
        } catch (IOException e) {
            verified.remove(stateId);
        }
    }

    /**
     * Notes what a look without the lock found to match the fingerprint: the file of {@code stamp}
     * (taken before the file was read at {@code lookedAt}) holding {@code digest}, or no file
     * (both null).
     */
    void remember(String stateId, MeltanoBackendDirectory.Stamp stamp, String digest, Instant lookedAt) {
        if ((stamp == null) != (digest == null)) {
            verified.remove(stateId); // the file came or went between the stamp and the read
        } else {
            verified.put(stateId, new Seen(stamp, digest, lookedAt));
        }
    }

    /** Forgets what was seen of the state ID's file (it changed, or could not be read). */
    void forget(String stateId) {
        verified.remove(stateId);
    }

    /** Moves an unreadable {@code state.json} aside as {@link #REJECTED_FILE}. */
    static void setAside(MeltanoBackendDirectory dir, String stateId) throws IOException {
        Path d = dir.dir(stateId);
        Files.move(d.resolve(MeltanoBackendDirectory.STATE_FILE), d.resolve(REJECTED_FILE),
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** The SHA-256 of {@code bytes}, lower-case hex. */
    static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

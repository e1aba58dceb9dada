package io.tapline.state.mirror;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Looks at the state files of the shared Meltano directory for {@link StateMirror}: reads a file
 * with its SHA-256, and remembers per state ID the file last seen to match its fingerprint
 * (its {@link MeltanoBackendDirectory#stamp}), so an unchanged file is not read again.
 */
final class MirrorLooks {

    /** Name an unreadable outside file is kept under, beside {@code state.json}. */
    static final String REJECTED_FILE = MeltanoBackendDirectory.STATE_FILE + ".rejected";

    /**
     * The bytes seen in a state ID's file.
     *
     * @param bytes the file's bytes, null when there is no file
     * @param digest their SHA-256 (hex), null when there is no file
     */
    record Look(byte[] bytes, String digest) {
    }

    /** A file last seen to match its fingerprint: its stamp and SHA-256. */
    private record Seen(String stamp, String digest) {
    }

    /** Per state ID, the file last seen to match its fingerprint. */
    private final Map<String, Seen> verified = new ConcurrentHashMap<>();

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
     * The digest of the state ID's file when it is the file last seen matching its fingerprint
     * (same stamp), without reading it; empty otherwise.
     */
    Optional<String> verifiedDigest(MeltanoBackendDirectory dir, String stateId) throws IOException {
        Optional<String> stamp = dir.stamp(stateId);
        Seen seen = verified.get(stateId);
        return stamp.isPresent() && seen != null && stamp.get().equals(seen.stamp())
                ? Optional.of(seen.digest()) : Optional.empty();
    }

    /** Notes the file as it now stands, holding {@code digest}, as matching its fingerprint. */
    void remember(MeltanoBackendDirectory dir, String stateId, String digest) {
        try {
            Optional<String> stamp = dir.stamp(stateId);
            if (stamp.isPresent() && digest != null) {
                verified.put(stateId, new Seen(stamp.get(), digest));
            } else {
                verified.remove(stateId);
            }
        } catch (IOException e) {
            verified.remove(stateId);
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

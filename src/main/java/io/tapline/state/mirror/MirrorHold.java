package io.tapline.state.mirror;

import io.tapline.state.json.InvalidJsonException;
import io.tapline.state.json.PythonUtf8;
import io.tapline.state.mirror.Reconciled.Outcome;
import io.tapline.state.model.InvalidStateException;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.store.MirrorWrites.OutsideChange;
import io.tapline.state.store.MirrorWrites;
import io.tapline.state.store.Origin;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * One state ID's file held under its lock file for a unit of work: what was seen in it, what
 * the unit imported from it, and, after the commit, the file rewritten with the stored state.
 */
final class MirrorHold implements MirrorWrites.Hold {

    private static final Logger LOG = Logger.getLogger(MirrorHold.class);

    private final StateMirror mirror;
    private final MeltanoBackendDirectory dir;
    private final String stateId;
    private final MeltanoBackendDirectory.Lock lock;
    private final Thread holder = Thread.currentThread();
    /** True for the mirror's own look ({@link StateMirror#sync}): a failure is its outcome, not only a log line. */
    private final boolean sync;
    /** The file read under the lock; null when not read (its stamp was verified, or it could not be). */
    MirrorLooks.Look look;
    /** The digest of the file under the lock, once known (null: no file, or set aside). */
    private String onFile;
    private boolean known;
    /** What the look found and did; UNCHANGED until it finds otherwise. */
    private Reconciled result;

    MirrorHold(StateMirror mirror, MeltanoBackendDirectory dir, String stateId, MeltanoBackendDirectory.Lock lock,
               boolean sync) {
        this.mirror = mirror;
        this.dir = dir;
        this.stateId = stateId;
        this.lock = lock;
        this.sync = sync;
        this.result = new Reconciled(stateId, Outcome.UNCHANGED, 0, null);
        mirror.held(stateId, holder);
    }

    /** What the look found and did (for {@link StateMirror#sync}). */
    Reconciled result() {
        return result;
    }

    /** Notes the digest of the file as it stands under the lock. */
    void seen(String digest) {
        onFile = digest;
        known = true;
    }

    /**
     * Decides on what the file holds, under the state ID's advisory lock (the writer took it):
     * nothing when it matches the fingerprint; else its record (or a clear when it is gone) for
     * the writer to store. An unreadable file is set aside. Throws nothing.
     */
    @Override
    public Optional<OutsideChange> outsideChange() {
        if (look == null) {
            return Optional.empty();
        }
        // The fingerprint is read under the advisory lock: a writer that imported this very file
        // in its own transaction has committed the new fingerprint by then.
        if (Objects.equals(look.digest(), mirror.files().find(stateId).orElse(null))) {
            seen(look.digest());
            return Optional.empty();
        }
        String where = where();
        if (look.bytes() == null) {
            seen(null);
            if (!Files.isDirectory(dir.root())) {
                result = new Reconciled(stateId, Outcome.FAILED, 0, "the state mirror directory " + dir.root()
                        + " is missing; nothing was cleared");
                return Optional.empty();
            }
            return Optional.of(new OutsideChange(null, origin("mirror clear")));
        }
        MeltanoState record;
        try {
            // Meltano cannot read ill-formed UTF-8 either
            record = MeltanoState.fromStateJson(PythonUtf8.decodeStrict(look.bytes(), false));
            record.merged();
        } catch (InvalidJsonException | InvalidStateException | StateConflictException e) {
            seen(null);
            result = new Reconciled(stateId, Outcome.INVALID, 0, where + " was changed outside Tapline but is"
                    + " not a Meltano state record (" + e.getMessage() + "); it was not imported and is kept as "
                    + MirrorLooks.REJECTED_FILE);
            try {
                MirrorLooks.setAside(dir, stateId);
            } catch (IOException | RuntimeException x) {
                LOG.warnf("Could not set the mirror file of state ID '%s' aside: %s", stateId, x.getMessage());
            }
            return Optional.empty();
        }
        return Optional.of(new OutsideChange(record, origin("mirror import")));
    }

    @Override
    public void imported(OutsideChange change, long version, boolean changed) {
        mirror.files().record(stateId, look.digest(), OffsetDateTime.now(mirror.clock()));
        seen(look.digest());
        if (change.record() == null) {
            result = new Reconciled(stateId, Outcome.CLEARED, version, where() + " was removed outside Tapline;"
                    + " state ID '" + stateId + "' was cleared (source MELTANO)");
        } else if (changed) {
            result = new Reconciled(stateId, Outcome.IMPORTED, version, where() + " was changed outside Tapline;"
                    + " imported as version " + version + " of '" + stateId + "' (source MELTANO)");
        } // else the file already held the stored state: unchanged
    }

    /** After the commit: reports the import, then writes the stored state into the file. */
    @Override
    public void committed() {
        mirror.report(result);
        try {
            mirror.writeCurrent(dir, stateId, known ? onFile : MirrorLooks.look(dir, stateId).digest());
            mirror.behind(stateId, false);
        } catch (IOException | RuntimeException e) {
            mirror.behind(stateId, true);
            if (sync) {
                result = StateMirror.failed(dir, stateId, e);
                LOG.warn(result.message());
            } else {
                LOG.warnf("The state mirror file of '%s' in %s could not be written after a change: %s; the next"
                        + " scan writes it", stateId, dir.root(), e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        mirror.letGo(stateId, lock, holder);
    }

    private String where() {
        return dir.root().resolve(stateId) + "/" + MeltanoBackendDirectory.STATE_FILE;
    }

    private Origin origin(String action) {
        return new Origin(Origin.Source.MELTANO, action, StateMirror.actor(dir), null);
    }
}

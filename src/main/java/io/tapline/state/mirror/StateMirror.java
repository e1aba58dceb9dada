package io.tapline.state.mirror;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.UnavailableException;
import io.tapline.state.mirror.Reconciled.Outcome;
import io.tapline.state.store.MirrorFileRepository;
import io.tapline.state.store.MirrorWrites;
import io.tapline.state.store.Origin;
import io.tapline.state.store.Snapshot;
import io.tapline.state.store.StateChecks;
import io.tapline.state.store.StateRepository;
import io.tapline.state.store.StateWriter;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Shares the configured Meltano local-filesystem backend directory ({@code tapline.state.mirror-dir})
 * with Meltano in both directions (docs/state.md "Sharing the directory with Meltano"):
 * <ul>
 *   <li><b>Tapline to Meltano:</b> a write of a state ID takes Meltano's {@code lock} file before
 *   its transaction changes anything and holds it until, after the commit, its
 *   {@code <dir>/<id>/state.json} has been rewritten (or removed when cleared) through a temporary
 *   file and an atomic rename, as a Meltano writer holds it over its read-modify-write: a Meltano
 *   write cannot come between the change and the file that shows it. The SHA-256 of the bytes
 *   written is kept per state ID in the database ({@code state_mirror_file}).</li>
 *   <li><b>Meltano to Tapline:</b> a file whose bytes differ from that fingerprint (or that Tapline
 *   never wrote) was written by someone else. It is read under the lock and imported as a new
 *   history version (source {@code MELTANO}, actor {@code meltano mirror <dir>}) before anything
 *   else is applied on top: in every unit of work of the writer on the state ID (this class is
 *   the writer's {@link MirrorWrites} port, {@link #hold}), before each run ({@link #reconcile}),
 *   before a read of the state ID ({@link #refresh}) and by the periodic scan ({@link #scan}). A
 *   directory removed by {@code meltano state clear} is imported as a clear.
 *   An unreadable file is never imported and never overwritten in place: it is kept beside as
 *   {@code state.json.rejected} and a warning is logged.</li>
 * </ul>
 * Every step takes the state ID's lock file first and then, for the database, its advisory lock,
 * so every replica may scan at once: the second finds the fingerprint already matching and does
 * nothing.
 * {@code MirrorTransfer} exports the whole store into the directory and imports a Meltano directory.
 */
@ApplicationScoped
public class StateMirror implements MirrorWrites {

    private static final Logger LOG = Logger.getLogger(StateMirror.class);
    /**
     * How often a held lock file is looked at again. Meltano waits 1 s between looks; looking more
     * often lets an edit take the lock in the short gaps between a busy Meltano's writes.
     */
    static final Duration LOCK_RETRY = Duration.ofMillis(50);
    /** Name an unreadable outside file is kept under, beside {@code state.json}. */
    static final String REJECTED_FILE = MirrorLooks.REJECTED_FILE;

    /**
     * Counts of one scan of the directory.
     *
     * @param checked state IDs looked at
     * @param imported outside changes imported (including clears)
     * @param failed state IDs that could not be checked or were invalid
     */
    public record Scan(int checked, int imported, int failed) {
    }

    private final TaplineConfig config;
    private final StateWriter writer;
    private final StateRepository repo;
    private final MirrorFileRepository files;
    private final Clock clock;
    /** The thread holding each state ID's lock file, while it does. */
    private final Map<String, Thread> holders = new ConcurrentHashMap<>();
    /**
     * State IDs whose file may be behind the stored state: a write could not take the lock file or
     * write the file. The scan writes them again (importing an outside change first).
     */
    private final Set<String> behind = ConcurrentHashMap.newKeySet();
    private final MirrorLooks looks;

    public StateMirror(TaplineConfig config, StateWriter writer, StateRepository repo, MirrorFileRepository files,
                       Clock clock) {
        this.config = config;
        this.writer = writer;
        this.repo = repo;
        this.files = files;
        this.clock = clock;
        // File times come from the system clock, whatever clock the service runs on.
        this.looks = new MirrorLooks(Clock.systemUTC());
    }

    /** The mirror directory, if configured. */
    public Optional<MeltanoBackendDirectory> directory() {
        return config.state().mirrorDir().map(this::open);
    }

    /** Opens a backend directory with the configured lock timeout. */
    public MeltanoBackendDirectory open(Path root) {
        return new MeltanoBackendDirectory(root, config.state().lockTimeout(), LOCK_RETRY, clock);
    }

    /**
     * Brings one state ID and its mirror file together, as the run engine does before each run:
     * imports an outside change of the file (a MELTANO version), then writes the current state
     * into the file. Never throws.
     *
     * @return a warning for the run when the file could not be checked or was invalid
     */
    public Optional<String> reconcile(String stateId) {
        if (config.state().mirrorDir().isEmpty()) {
            return Optional.empty();
        }
        Reconciled r = sync(stateId);
        return switch (r.outcome()) {
            case INVALID, FAILED -> Optional.of(r.message());
            default -> Optional.empty();
        };
    }

    /**
     * Before a read of the state ID (a {@code GET}), so that it never answers older than its
     * mirror file: when the file is not as last seen matching its fingerprint (one {@code stat}
     * when it is; see {@link MirrorLooks} for stamps that cannot be trusted), it is read and
     * compared with the fingerprint, and a change made outside Tapline is imported through the
     * writer ({@link #sync}) before the read. Never throws: a problem is logged and the read
     * answers what is stored.
     */
    public void refresh(String stateId) {
        Optional<MeltanoBackendDirectory> d = directory();
        if (d.isEmpty() || !StateChecks.fileSafe(stateId)) {
            return;
        }
        MeltanoBackendDirectory dir = d.get();
        try {
            if (looks.unchanged(dir, stateId)) {
                return;
            }
            Instant lookedAt = Instant.now();
            Optional<MeltanoBackendDirectory.Stamp> stamp = dir.stamp(stateId);
            MirrorLooks.Look look = MirrorLooks.look(dir, stateId);
            String known = QuarkusTransaction.requiringNew().call(() -> files.find(stateId)).orElse(null);
            if (Objects.equals(look.digest(), known)) {
                looks.remember(stateId, stamp.orElse(null), look.digest(), lookedAt);
                return;
            }
            sync(stateId);
        } catch (IOException | RuntimeException e) {
            LOG.warnf("Could not check the mirror file of state ID '%s' before a read: %s", stateId, e.getMessage());
        }
    }

    /**
     * Looks at every state ID of the directory and every state ID Tapline has a file for, and
     * reconciles those whose file changed; one failing state ID does not stop the scan.
     */
    public Scan scan() {
        Optional<MeltanoBackendDirectory> d = directory();
        if (d.isEmpty()) {
            return new Scan(0, 0, 0);
        }
        MeltanoBackendDirectory dir = d.get();
        if (!Files.isDirectory(dir.root())) {
            LOG.warnf("The state mirror directory %s does not exist; nothing was scanned", dir.root());
            return new Scan(0, 0, 1);
        }
        Set<String> ids = new TreeSet<>();
        Map<String, String> known;
        try {
            ids.addAll(dir.list());
            known = QuarkusTransaction.requiringNew().call(files::all);
        } catch (IOException | RuntimeException e) {
            LOG.warnf("Could not scan the state mirror directory %s: %s", dir.root(), e.getMessage());
            return new Scan(0, 0, 1);
        }
        ids.addAll(known.keySet());
        ids.addAll(behind);
        int imported = 0;
        int failed = 0;
        for (String id : ids) {
            try {
                if (!behind.contains(id) && !looks.changed(dir, id, known.get(id))) {
                    continue;
                }
                Reconciled r = sync(id);
                switch (r.outcome()) {
                    case IMPORTED, CLEARED -> imported++;
                    case INVALID, FAILED -> failed++;
                    default -> {
                    }
                }
            } catch (IOException | RuntimeException e) {
                failed++;
                LOG.warnf("Could not check the mirror file of state ID '%s': %s", id, e.getMessage());
            }
        }
        return new Scan(ids.size(), imported, failed);
    }

    /**
     * Before a unit of work of the writer on the state ID ({@link MirrorWrites}): takes the ID's
     * lock file and holds it until the hold is closed, after the transaction has ended and, after a
     * commit, the file has been rewritten with the stored state, as a Meltano writer holds it over
     * its read-modify-write. What someone else wrote into the file is found under the writer's
     * advisory lock ({@link Hold#outsideChange}) and stored by the writer before the change, so
     * the change lands on top of it and no Meltano write can come between the change and the file
     * that shows it.
     *
     * <p>When the lock file stays held by another writer past the lock timeout, an operator's edit
     * is refused (503, nothing changed); a run's checkpoint goes on, and the file is written again
     * by the next scan. Other problems are logged; the write goes on without the file.
     *
     * @throws DomainException 503 for an edit while Meltano holds the lock file past the lock timeout
     */
    @Override
    public Hold hold(String stateId, Origin.Source source) {
        Optional<MeltanoBackendDirectory> d = directory();
        if (d.isEmpty() || holds(stateId)) {
            return Hold.NONE;
        }
        MeltanoBackendDirectory dir = d.get();
        MeltanoBackendDirectory.Lock lock;
        try {
            if (!rootUsable(dir)) {
                LOG.warnf("The state mirror directory %s is missing although Tapline wrote files there; '%s' is"
                        + " changed in the database only", dir.root(), stateId);
                return Hold.NONE;
            }
            lock = dir.lock(stateId);
        } catch (MeltanoBackendDirectory.LockTimeoutException e) {
            if (source != Origin.Source.RUN) {
                throw new UnavailableException("The state mirror file of '" + stateId + "' in "
                        + dir.root() + " stayed locked by another writer (Meltano) for longer than the lock timeout ("
                        + config.state().lockTimeout().toSeconds() + " s): " + e.getMessage()
                        + ". Nothing was changed; retry once it is done.");
            }
            behind.add(stateId);
            LOG.warnf("Could not take the mirror lock of state ID '%s' before a run's checkpoint: %s; the file"
                    + " is written by the next scan", stateId, e.getMessage());
            return Hold.NONE;
        } catch (IOException | RuntimeException e) {
            behind.add(stateId);
            LOG.warnf("Could not take the mirror lock of state ID '%s' before a write: %s", stateId, e.getMessage());
            return Hold.NONE;
        }
        MirrorHold hold = new MirrorHold(this, dir, stateId, lock, false);
        try {
            Optional<String> known = looks.verifiedDigest(dir, stateId);
            if (known.isPresent()) {
                hold.seen(known.get());
            } else {
                hold.look = MirrorLooks.look(dir, stateId);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warnf("Could not check the mirror file of state ID '%s' before a write: %s", stateId, e.getMessage());
        }
        return hold;
    }

    void letGo(String stateId, MeltanoBackendDirectory.Lock lock, Thread holder) {
        holders.remove(stateId, holder);
        try {
            lock.release();
        } catch (IOException e) {
            LOG.warnf("Could not remove the mirror lock of state ID '%s': %s", stateId, e.getMessage());
        }
    }

    /** Notes that {@code holder} holds the state ID's lock file. */
    void held(String stateId, Thread holder) {
        holders.put(stateId, holder);
    }

    /** Notes that the state ID's file may be behind the stored state (or is no longer). */
    void behind(String stateId, boolean isBehind) {
        if (isBehind) {
            behind.add(stateId);
        } else {
            behind.remove(stateId);
        }
    }

    /** The clock of the service (the times recorded with fingerprints). */
    Clock clock() {
        return clock;
    }

    /** The fingerprints of the files Tapline wrote or accepted. */
    MirrorFileRepository files() {
        return files;
    }

    /** True when this thread holds the state ID's lock file. */
    private boolean holds(String stateId) {
        return holders.get(stateId) == Thread.currentThread();
    }

    /**
     * Under the state ID's lock file: imports an outside change through the writer (its own unit of
     * work, source MELTANO), then writes the current state into the file (or removes it) and
     * records its fingerprint. Never throws.
     */
    public Reconciled sync(String stateId) {
        MeltanoBackendDirectory dir = directory().orElseThrow();
        try {
            if (!rootUsable(dir)) {
                String m = "the state mirror directory " + dir.root() + " is missing although Tapline wrote files"
                        + " there; nothing was imported, cleared or written for '" + stateId + "'";
                LOG.warn(m);
                return new Reconciled(stateId, Outcome.FAILED, 0, m);
            }
            MirrorHold hold = new MirrorHold(this, dir, stateId, dir.lock(stateId), true);
            try {
                hold.look = MirrorLooks.look(dir, stateId);
                writer.transaction(stateId, hold, () -> null);
                return hold.result();
            } finally {
                hold.close();
            }
        } catch (IOException | RuntimeException e) {
            Reconciled r = failed(dir, stateId, e);
            LOG.warn(r.message());
            return r;
        }
    }

    static Reconciled failed(MeltanoBackendDirectory dir, String stateId, Exception e) {
        return new Reconciled(stateId, Outcome.FAILED, 0, "the state mirror file of '" + stateId + "' in " + dir.root()
                + " could not be checked or written: " + e.getMessage());
    }

    /**
     * Writes the stored state into the file and records its digest, unless the file already holds
     * exactly it: the file was seen (under the lock) with {@code onFile}, which its fingerprint
     * then records already.
     *
     * @param onFile the digest of the file's bytes as seen under the lock, null when there is none
     *     (or it was set aside)
     */
    void writeCurrent(MeltanoBackendDirectory dir, String stateId, String onFile) throws IOException {
        Snapshot s = repo.find(stateId).map(Snapshot::of).orElseGet(() -> Snapshot.none(stateId));
        String digest;
        if (s.exists()) {
            String json = s.state().toStateJson();
            digest = MirrorLooks.sha256(json.getBytes(StandardCharsets.US_ASCII));
            if (digest.equals(onFile)) {
                looks.remember(dir, stateId, digest);
                return;
            }
            dir.writeLocked(stateId, json);
        } else {
            digest = null;
            Files.deleteIfExists(dir.dir(stateId).resolve(MeltanoBackendDirectory.STATE_FILE));
        }
        QuarkusTransaction.requiringNew().run(() -> files.record(stateId, digest, OffsetDateTime.now(clock)));
        looks.remember(dir, stateId, digest);
    }

    /**
     * True when the root exists, or may be created because Tapline has written no file yet (a
     * fresh mirror): a root that vanished after Tapline wrote there (an unmounted volume) is not
     * recreated, so its state IDs are not read as cleared by Meltano.
     */
    private boolean rootUsable(MeltanoBackendDirectory dir) throws IOException {
        if (Files.isDirectory(dir.root())) {
            return true;
        }
        if (QuarkusTransaction.requiringNew().call(files::any)) {
            return false;
        }
        Files.createDirectories(dir.root());
        return true;
    }

    void report(Reconciled r) {
        if (r.outcome() == Outcome.IMPORTED || r.outcome() == Outcome.CLEARED) {
            looks.forget(r.stateId());
            LOG.info(r.message());
        } else if (!r.quiet()) {
            looks.forget(r.stateId());
            LOG.warn(r.message());
        }
    }

    /** The actor of imported versions: {@code meltano mirror <dir>}, at most 200 characters. */
    static String actor(MeltanoBackendDirectory dir) {
        String a = "meltano mirror " + dir.root();
        return a.length() <= 200 ? a : a.substring(0, 197) + "...";
    }
}

package io.tapline.state;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.ProblemType;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Keeps the configured Meltano local-filesystem backend directory ({@code tapline.state.mirror-dir})
 * in step with the store: after each committed change of a state ID its {@code state.json} is
 * rewritten (or its directory removed when cleared), so Meltano pointed at that directory sees the
 * same bookmarks. Also exports the whole store into it and imports a Meltano directory.
 */
@ApplicationScoped
public class StateMirror {

    private static final Logger LOG = Logger.getLogger(StateMirror.class);

    private final TaplineConfig config;
    private final StateService states;
    private final Clock clock;

    public StateMirror(TaplineConfig config, StateService states, Clock clock) {
        this.config = config;
        this.states = states;
        this.clock = clock;
    }

    /** The mirror directory, if configured. */
    public Optional<MeltanoBackendDirectory> directory() {
        return config.state().mirrorDir().map(this::open);
    }

    /** Opens a backend directory with the configured lock timeout. */
    public MeltanoBackendDirectory open(Path root) {
        return new MeltanoBackendDirectory(root, config.state().lockTimeout(), Duration.ofSeconds(1), clock);
    }

    void onChange(@Observes(during = TransactionPhase.AFTER_SUCCESS) StateService.StateChanged event) {
        directory().ifPresent(dir -> {
            try {
                mirror(dir, event.stateId());
            } catch (IOException | RuntimeException e) {
                LOG.warnf("Could not mirror state ID '%s' into %s: %s", event.stateId(), dir.root(), e.getMessage());
            }
        });
    }

    /**
     * Writes one state ID's current state into {@code dir} (or deletes its directory when it has
     * none). IDs that are not safe directory names are refused with a 400.
     */
    public void mirror(MeltanoBackendDirectory dir, String stateId) throws IOException {
        StateService.Snapshot s = states.get(stateId);
        if (s.exists()) {
            dir.write(stateId, s.state().toStateJson());
        } else {
            dir.delete(stateId);
        }
    }

    /**
     * Exports the listed state IDs (all when {@code ids} is empty) into the mirror directory. IDs
     * that are not safe directory names are skipped and reported in {@code skipped}.
     *
     * @return the IDs written
     * @throws ProblemException 409 when no mirror directory is configured
     */
    public List<String> exportAll(List<String> ids, List<String> skipped) throws IOException {
        MeltanoBackendDirectory dir = directory().orElseThrow(() -> new ProblemException(ProblemType.VALIDATION,
                "No state mirror directory is configured; set tapline.state.mirror-dir (TAPLINE_STATE_MIRROR_DIR)."));
        List<String> todo = ids.isEmpty() ? states.list(null, null, Integer.MAX_VALUE).stream()
                .map(StateRepository.Listed::stateId).toList() : ids;
        List<String> written = new java.util.ArrayList<>();
        for (String id : todo) {
            try {
                mirror(dir, id);
                written.add(id);
            } catch (ProblemException e) {
                skipped.add(id + ": " + e.getMessage());
            }
        }
        return written;
    }

    /**
     * Imports state IDs from a Meltano local-filesystem backend directory (all, or the listed
     * ones), each as an IMPORT that overwrites the stored record, as {@code meltano state import}.
     *
     * @param root the directory: the mirror, or one listed in {@code tapline.state.import-dirs}
     * @return the IDs imported
     * @throws ProblemException 400 when the directory is not allowed or a file is invalid
     */
    public List<String> importDirectory(Path root, List<String> ids, String actor, boolean force) throws IOException {
        Path dirPath = root == null ? config.state().mirrorDir().orElse(null) : root.toAbsolutePath().normalize();
        if (dirPath == null || !allowed(dirPath)) {
            throw ProblemException.invalid("directory", "must be the configured mirror directory or one listed in"
                    + " tapline.state.import-dirs");
        }
        MeltanoBackendDirectory dir = open(dirPath);
        List<String> todo = ids.isEmpty() ? dir.list() : ids;
        StringBuilder all = new StringBuilder("{");
        for (String id : todo) {
            String text = dir.read(id).orElseThrow(() -> ProblemException.notFound("State file", id));
            MeltanoState parsed;
            try {
                parsed = MeltanoState.fromStateJson(text);
            } catch (InvalidJsonException | InvalidStateException e) {
                throw ProblemException.invalid(id, "its state.json is invalid: " + e.getMessage());
            }
            if (all.length() > 1) {
                all.append(',');
            }
            all.append(PythonJson.write(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.textNode(id),
                    PythonJson.Layout.COMPACT)).append(':').append(parsed.toStateJson());
        }
        states.importAll(all.append('}').toString(), actor, force);
        return todo;
    }

    /** Compares real paths (symbolic links resolved), so a link cannot lead outside an allowed directory. */
    private boolean allowed(Path dir) {
        Path real = real(dir);
        if (real == null) {
            return false;
        }
        if (config.state().mirrorDir().map(p -> real.equals(real(p))).orElse(false)) {
            return true;
        }
        return config.state().importDirs().orElse(List.of()).stream()
                .map(StateMirror::real).anyMatch(p -> p != null && real.startsWith(p));
    }

    private static Path real(Path p) {
        try {
            return p.toAbsolutePath().toRealPath();
        } catch (IOException e) {
            return null;
        }
    }
}

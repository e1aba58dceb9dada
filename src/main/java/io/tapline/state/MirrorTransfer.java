package io.tapline.state;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.state.json.InvalidJsonException;
import io.tapline.state.json.PythonJson;
import io.tapline.state.mirror.MeltanoBackendDirectory;
import io.tapline.state.mirror.Reconciled;
import io.tapline.state.mirror.StateMirror;
import io.tapline.state.model.InvalidStateException;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.store.Snapshot;
import io.tapline.state.store.StateChecks;
import io.tapline.state.store.StateRepository;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Moves state between the store and Meltano local-filesystem backend directories in bulk:
 * {@code POST /api/v1/states:export-directory} (into the mirror, through {@link StateMirror}, so an
 * outside change there is imported before it would be overwritten) and
 * {@code POST /api/v1/states:import-directory} (from the mirror or a directory listed in
 * {@code tapline.state.import-dirs}).
 */
@ApplicationScoped
public class MirrorTransfer {

    private final TaplineConfig config;
    private final StateService states;
    private final StateMirror mirror;

    public MirrorTransfer(TaplineConfig config, StateService states, StateMirror mirror) {
        this.config = config;
        this.states = states;
        this.mirror = mirror;
    }

    /**
     * Writes one state ID's current state into {@code dir} (or deletes its directory when it has
     * none). In the mirror directory this is {@link #sync}: an outside change is imported first.
     * IDs that are not safe directory names are refused with a 400.
     */
    public void mirror(MeltanoBackendDirectory dir, String stateId) throws IOException {
        if (config.state().mirrorDir().map(p -> mirror.open(p).root().equals(dir.root())).orElse(false)) {
            StateChecks.stateIdForFiles("stateId", stateId); // 400 for an unsafe name
            Reconciled r = mirror.sync(stateId);
            if (r.outcome() == Reconciled.Outcome.FAILED) {
                throw new IOException(r.message());
            }
            return;
        }
        Snapshot s = states.get(stateId);
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
     * @throws InvalidInputException 400 when no mirror directory is configured
     */
    public List<String> exportAll(List<String> ids, List<String> skipped) throws IOException {
        MeltanoBackendDirectory dir = mirror.directory().orElseThrow(() -> new InvalidInputException(
                "No state mirror directory is configured; set tapline.state.mirror-dir (TAPLINE_STATE_MIRROR_DIR).",
                List.of()));
        List<String> todo = ids.isEmpty() ? states.list(null, null, Integer.MAX_VALUE).stream()
                .map(StateRepository.Listed::stateId).toList() : ids;
        List<String> written = new java.util.ArrayList<>();
        for (String id : todo) {
            try {
                mirror(dir, id);
                written.add(id);
            } catch (InvalidInputException e) {
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
     * @throws DomainException 400 when the directory is not allowed or a file is invalid
     */
    public List<String> importDirectory(Path root, List<String> ids, String actor, boolean force) throws IOException {
        Path dirPath = root == null ? config.state().mirrorDir().orElse(null) : root.toAbsolutePath().normalize();
        if (dirPath == null || !allowed(dirPath)) {
            throw InvalidInputException.field("directory", "must be the configured mirror directory or one listed in"
                    + " tapline.state.import-dirs");
        }
        MeltanoBackendDirectory dir = mirror.open(dirPath);
        List<String> todo = ids.isEmpty() ? dir.list() : ids;
        StringBuilder all = new StringBuilder("{");
        for (String id : todo) {
            String text = dir.read(id).orElseThrow(() -> new NotFoundException("State file", id));
            MeltanoState parsed;
            try {
                parsed = MeltanoState.fromStateJson(text);
            } catch (InvalidJsonException | InvalidStateException e) {
                throw InvalidInputException.field(id, "its state.json is invalid: " + e.getMessage());
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
                .map(MirrorTransfer::real).anyMatch(p -> p != null && real.startsWith(p));
    }

    private static Path real(Path p) {
        try {
            return p.toAbsolutePath().toRealPath();
        } catch (IOException e) {
            return null;
        }
    }
}

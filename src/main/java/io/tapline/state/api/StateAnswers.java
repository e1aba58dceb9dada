package io.tapline.state.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Params;
import io.tapline.common.error.ConflictException;
import io.tapline.state.json.PythonJson;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.store.Snapshot;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Answers the state and bookmark resources share: a state printed as {@code meltano state get}
 * prints it, the 409 for a record whose sides cannot be merged, the {@code force} parameter.
 */
final class StateAnswers {

    private StateAnswers() {
    }

    /** The merged state of a snapshot; 409 when its sides cannot be merged. */
    static ObjectNode merged(Snapshot s) {
        try {
            return s.state().merged();
        } catch (StateConflictException e) {
            throw conflict(e);
        }
    }

    /** 409 for a stored state whose partial side cannot be merged over its completed side. */
    static ConflictException conflict(StateConflictException e) {
        return new ConflictException(ConflictException.Reason.STATE_CONFLICT, "The stored partial state cannot be merged over the"
                + " completed state at " + e.path() + "; use view=split to see both, and set to repair.");
    }

    /** A state as {@code meltano state get} prints it (compact, trailing newline), its version as the ETag. */
    static Response state(Snapshot s) {
        String body = s.exists() ? PythonJson.write(merged(s), PythonJson.Layout.COMPACT) : "{}";
        return Response.ok(body + "\n", MediaType.APPLICATION_JSON_TYPE).tag(ETags.of(s.version())).build();
    }

    /** The {@code force} query parameter ({@link Params#flag}): absent is false. */
    static boolean forced(String force) {
        return Params.flag("force", force, false);
    }
}

package io.tapline.state.store;

import io.tapline.common.api.ETags;
import io.tapline.common.api.Names;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.ProblemException;
import io.tapline.common.error.VersionMismatchException;

/**
 * The checks of the state store that the shared HTTP helpers ({@link Names}, {@link ETags}) make,
 * with their refusals as domain errors: a bad state ID is an {@link InvalidInputException}, a
 * stale {@code If-Match} a {@link VersionMismatchException}, each with the helper's detail, field
 * errors and {@code currentETag}, so the answer is the same problem as before. The one place of
 * {@code state} below the API that reads an HTTP problem, until those helpers throw domain errors.
 */
public final class StateChecks {

    private StateChecks() {
    }

    /**
     * A state ID: 1 to 900 characters, no control characters ({@link Names#stateId}).
     *
     * @throws InvalidInputException naming {@code field}
     */
    public static void stateId(String field, String stateId) {
        try {
            Names.stateId(field, stateId);
        } catch (ProblemException e) {
            throw invalid(e);
        }
    }

    /**
     * A state ID that can also be a directory name of the Meltano backend directory
     * ({@link Names#stateIdForFiles}).
     *
     * @throws InvalidInputException naming {@code field}
     */
    public static void stateIdForFiles(String field, String stateId) {
        try {
            Names.stateIdForFiles(field, stateId);
        } catch (ProblemException e) {
            throw invalid(e);
        }
    }

    /** True when the state ID can be a mirror directory's name (else no mirror file can exist for it). */
    public static boolean fileSafe(String stateId) {
        try {
            Names.stateIdForFiles("stateId", stateId);
            return true;
        } catch (ProblemException e) {
            return false;
        }
    }

    /**
     * {@code If-Match} against the stored version ({@link ETags#checkIfMatch}); null, blank or
     * {@code *} match any version.
     *
     * @throws VersionMismatchException with {@code currentETag} when the header names other versions
     */
    public static void ifMatch(String ifMatch, long version) {
        try {
            ETags.checkIfMatch(ifMatch, version);
        } catch (ProblemException e) {
            Object current = e.extensions().get("currentETag");
            throw new VersionMismatchException(e.getMessage(), current == null ? null : current.toString());
        }
    }

    private static InvalidInputException invalid(ProblemException e) {
        return new InvalidInputException(e.getMessage(), e.errors());
    }
}

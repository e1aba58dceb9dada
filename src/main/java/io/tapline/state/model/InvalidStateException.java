package io.tapline.state.model;

import io.tapline.state.StateService;

/**
 * A value is not acceptable as Meltano state: it lacks the top-level {@code singer_state} key
 * (Meltano's {@code StateService.validate_state}, meltano-state.md §1c), or a {@code state.json}
 * record is not shaped {@code {"completed": {...}, "partial": {...}}} (§1d).
 */
public final class InvalidStateException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * The message Meltano 4.2.2 prints for state without a top-level {@code singer_state} key,
     * minus the CLI's hint about {@code --no-validate} (meltano-state.md §1c).
     */
    public static final String MISSING_SINGER_STATE = "singer_state not found in top level of provided state. "
            + "State must be valid JSON with a top-level 'singer_state' key.";

    public InvalidStateException(String message) {
        super(message);
    }

    public InvalidStateException(String message, Throwable cause) {
        super(message, cause);
    }
}

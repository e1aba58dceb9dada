package io.tapline.state.store;

import io.tapline.common.api.Names;
import io.tapline.common.error.InvalidInputException;

/**
 * The checks of the state store, in its terms: the state ID rules of {@link Names}. A bad state ID
 * is an {@link InvalidInputException} naming the field. (The version check is
 * {@link io.tapline.common.api.ExpectedVersion#check}.)
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
        Names.stateId(field, stateId);
    }

    /**
     * A state ID that can also be a directory name of the Meltano backend directory
     * ({@link Names#stateIdForFiles}).
     *
     * @throws InvalidInputException naming {@code field}
     */
    public static void stateIdForFiles(String field, String stateId) {
        Names.stateIdForFiles(field, stateId);
    }

    /** True when the state ID can be a mirror directory's name (else no mirror file can exist for it). */
    public static boolean fileSafe(String stateId) {
        try {
            Names.stateIdForFiles("stateId", stateId);
            return true;
        } catch (InvalidInputException e) {
            return false;
        }
    }
}

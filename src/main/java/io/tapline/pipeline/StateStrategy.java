package io.tapline.pipeline;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import io.tapline.common.error.InvalidInputException;
import java.util.Locale;

/**
 * Meltano's {@code --state-strategy} (meltano-state.md §3): how each target state line is written.
 * {@code auto} replaces the completed state, except on a full refresh where it merges;
 * {@code merge} always deep-merges into the partial state; {@code overwrite} always replaces.
 */
public enum StateStrategy {
    AUTO, MERGE, OVERWRITE;

    /** Lowercase, as Meltano spells it. */
    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code auto}, {@code merge} or {@code overwrite} (any case).
     *
     * @throws InvalidInputException 400 for anything else
     */
    @JsonCreator
    public static StateStrategy parse(String value) {
        if (value != null) {
            for (StateStrategy s : values()) {
                if (s.name().equalsIgnoreCase(value.trim())) {
                    return s;
                }
            }
        }
        throw InvalidInputException.field("stateStrategy", "must be one of auto, merge, overwrite; got "
                + io.tapline.common.api.Names.quote(value));
    }
}

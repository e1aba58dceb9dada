package io.tapline.pipeline;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.tapline.common.error.InvalidInputException;

/**
 * When state acknowledged by the target becomes the pipeline's state.
 * {@code CHECKPOINT} (default, Meltano's behaviour): each acknowledged state is kept even if the
 * run fails later. {@code ON_SUCCESS}: held aside during the run and promoted only when every
 * component exited 0.
 */
public enum StateCommitPolicy {
    CHECKPOINT, ON_SUCCESS;

    /**
     * Parses the policy (any case).
     *
     * @throws InvalidInputException 400 for anything else
     */
    @JsonCreator
    public static StateCommitPolicy parse(String value) {
        if (value != null) {
            for (StateCommitPolicy s : values()) {
                if (s.name().equalsIgnoreCase(value.trim())) {
                    return s;
                }
            }
        }
        throw InvalidInputException.field("stateCommitPolicy", "must be CHECKPOINT or ON_SUCCESS; got "
                + io.tapline.common.api.Names.quote(value));
    }
}

package io.tapline.pipeline;


import io.tapline.common.error.InvalidInputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Meltano's state ID rule for {@code meltano run} ({@code generate_state_id}, meltano-state.md §3):
 * the non-empty components {@code <environment>}, {@code <extractor>-to-<loader>} and the optional
 * suffix, joined with {@code :}; no component may contain {@code :}. Mappers are not part of it.
 */
public final class StateIds {

    /** The delimiter between components ({@code STATE_ID_COMPONENT_DELIMITER}). */
    public static final String DELIMITER = ":";

    private StateIds() {
    }

    /**
     * Derives a state ID, e.g. {@code dev:tap-gitlab-to-target-postgres:nightly}.
     *
     * @param suffix optional, may be null or empty
     * @throws InvalidInputException 400 when a component contains {@code :}
     */
    public static String derive(String environment, String extractor, String loader, String suffix) {
        List<String> parts = new ArrayList<>();
        check("environment", environment);
        check("stateIdSuffix", suffix);
        if (environment != null && !environment.isEmpty()) {
            parts.add(environment);
        }
        parts.add(extractor + "-to-" + loader);
        if (suffix != null && !suffix.isEmpty()) {
            parts.add(suffix);
        }
        return String.join(DELIMITER, parts);
    }

    private static void check(String field, String component) {
        if (component != null && component.contains(DELIMITER)) {
            throw InvalidInputException.field(field, "cannot contain the state ID delimiter ':'");
        }
    }
}

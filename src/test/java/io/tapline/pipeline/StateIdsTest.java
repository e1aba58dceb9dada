package io.tapline.pipeline;

import io.tapline.common.error.InvalidInputException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class StateIdsTest {

    @Test
    void derivesMeltanoRunStateIds() {
        assertEquals("dev:tap-gitlab-to-target-postgres", StateIds.derive("dev", "tap-gitlab", "target-postgres", null));
        assertEquals("dev:tap-gitlab-to-target-postgres:pipeline-alias",
                StateIds.derive("dev", "tap-gitlab", "target-postgres", "pipeline-alias"));
        assertEquals("dev:tap-x--prod-to-target-y", StateIds.derive("dev", "tap-x--prod", "target-y", ""));
        assertEquals("tap-a-to-target-b", StateIds.derive("", "tap-a", "target-b", null));
    }

    @Test
    void refusesTheDelimiterInsideAComponent() {
        assertThrows(InvalidInputException.class, () -> StateIds.derive("d:ev", "a", "b", null));
        assertThrows(InvalidInputException.class, () -> StateIds.derive("dev", "a", "b", "x:y"));
    }
}

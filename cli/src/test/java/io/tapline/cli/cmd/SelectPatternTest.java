package io.tapline.cli.cmd;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code tapline select}'s patterns: Meltano's ENTITY ATTRIBUTE form, or one whole pattern. */
class SelectPatternTest {

    @Test
    void entityAndAttributeAsMeltanoJoinsThem() {
        assertEquals("users.*", SelectCommand.pattern("users", null, false));
        assertEquals("users.id", SelectCommand.pattern("users", "id", false));
        assertEquals("!users.email", SelectCommand.pattern("users", "email", true));
        assertEquals("public.users.*", SelectCommand.pattern("public.users", "*", false));
    }

    @Test
    void aWholePatternIsTakenAsItIs() {
        assertEquals("users.id", SelectCommand.pattern("users.id", null, false));
        assertEquals("!users.email", SelectCommand.pattern("!users.email", null, false));
        assertEquals("!users.email", SelectCommand.pattern("users.email", null, true));
    }
}

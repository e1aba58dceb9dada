package io.tapline.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every verb's {@code --help} has a description and an example (issue 27). */
class HelpTest {

    @Test
    void everyCommandHasADescriptionAndAnExample() {
        List<String> missing = new ArrayList<>();
        walk(TaplineCli.commandLine(null), missing);
        assertEquals(List.of(), missing, "commands without a description or an example");
    }

    @Test
    void aCommandLineBuildsOnlyTheVerbsItNames() {
        CommandLine cl = TaplineCli.commandLine(java.util.Set.of("state", "get", "x"));
        assertEquals(List.of("state"), List.copyOf(cl.getSubcommands().keySet()));
        assertEquals(List.of("get"), List.copyOf(cl.getSubcommands().get("state").getSubcommands().keySet()));
        assertTrue(TaplineCli.commandLine(java.util.Set.of("state")).getSubcommands().get("state").getSubcommands()
                .containsKey("bookmark"), "a group named alone gets all its subcommands (for its help)");
    }

    private static void walk(CommandLine cl, List<String> missing) {
        CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
        if (!spec.usageMessage().hidden()) {
            String usage = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            if (spec.usageMessage().description().length == 0 || !usage.contains("Example")) {
                missing.add(spec.qualifiedName());
            }
        }
        cl.getSubcommands().values().forEach(sub -> walk(sub, missing));
    }
}

package io.tapline.project.export;

import java.util.ArrayList;
import java.util.List;

/**
 * The comment at the top of an exported meltano.yml: what a meltano.yml cannot express in general
 * (docs/projects.md, "What a meltano.yml cannot express") and, by name, the plugins and pipelines
 * of this export that Meltano will run differently from Tapline. Names only, never values (an
 * argument or a variable may hold a secret).
 */
final class ExportNotes {

    private static final List<String> ALWAYS = List.of(
            "Written by Tapline. Meltano 4.2.2 runs it as it is; what Meltano has no key for is kept",
            "under annotations.tapline (Meltano ignores it, Tapline's import reads it back) or left out:",
            "- Tapline-only pipeline fields (state strategy, commit policy, timeout, retry, executor)",
            "  and the values of sensitive settings (written as ${PLUGIN_SETTING} references);",
            "- a paused schedule has interval @manual (Meltano has no pause), its own interval under",
            "  annotations.tapline.interval;",
            "- plugin arguments (annotations.tapline.args): Meltano starts a plugin as its executable",
            "  alone, so such a plugin needs a wrapper script to run in Meltano.",
            "See docs/projects.md, Export.");

    private final List<String> specific = new ArrayList<>();

    /** Adds one line about this export (a plugin or pipeline name and what Meltano does differently). */
    void add(String line) {
        specific.add(line);
    }

    /** The comment, every line starting with {@code # }, ending with a newline. */
    String header() {
        StringBuilder sb = new StringBuilder();
        ALWAYS.forEach(l -> sb.append("# ").append(l).append('\n'));
        if (!specific.isEmpty()) {
            sb.append("# In this export:\n");
            specific.forEach(l -> sb.append("# - ").append(l.replace('\n', ' ')).append('\n'));
        }
        return sb.toString();
    }
}

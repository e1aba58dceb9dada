package io.tapline.cli.cmd;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A command made of subcommands ({@code tapline state get}, ...), registered by name so that only
 * the ones a command line names are built: picocli reads a command's annotations when it is
 * added, and that reflection is most of a short command's start-up time.
 */
public interface Group {

    /** The subcommands' classes by name, in help order. */
    Map<String, Class<?>> subcommands();

    /** A map of {@code name, class, name, class, ...}, in order. */
    static Map<String, Class<?>> of(Object... namesAndClasses) {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndClasses.length; i += 2) {
            m.put((String) namesAndClasses[i], (Class<?>) namesAndClasses[i + 1]);
        }
        return m;
    }
}

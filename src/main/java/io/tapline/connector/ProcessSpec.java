package io.tapline.connector;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How to start a connector process: no shell, an explicit working directory, and exactly the
 * environment given (nothing is inherited from the service unless put into {@code environment},
 * e.g. with {@link #serviceVariables}).
 *
 * @param component        the name used as stderr prefix and in thread names, e.g. {@code extractor}
 * @param command          the executable and its arguments, passed to the OS as they are. An
 *                         executable without {@code /} is looked up on the {@code PATH} of
 *                         {@code environment} (not the service's); one with {@code /} is used as
 *                         is, relative to {@code workingDirectory}
 * @param workingDirectory the directory the process starts in; must exist when it is started
 * @param environment      the complete environment of the process; may be empty
 */
public record ProcessSpec(String component, List<String> command, Path workingDirectory,
                          Map<String, String> environment) {

    /** The variables a connector usually needs from the service: {@code PATH}, {@code HOME}, {@code LANG}. */
    public static final List<String> BASIC_VARIABLES = List.of("PATH", "HOME", "LANG");

    /**
     * Validates and copies the arguments.
     *
     * @throws IllegalArgumentException if the component is blank, the command is empty, or a
     *                                  command word, variable name or value contains NUL, or a
     *                                  name is empty or contains {@code =}
     */
    public ProcessSpec {
        Objects.requireNonNull(component, "component");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(workingDirectory, "workingDirectory");
        Objects.requireNonNull(environment, "environment");
        if (component.isBlank()) {
            throw new IllegalArgumentException("component must not be blank");
        }
        if (command.isEmpty() || command.get(0).isEmpty()) {
            throw new IllegalArgumentException("command must name an executable");
        }
        for (String word : command) {
            if (Objects.requireNonNull(word, "command word").indexOf('\0') >= 0) {
                throw new IllegalArgumentException("command words must not contain NUL");
            }
        }
        for (Map.Entry<String, String> variable : environment.entrySet()) {
            String name = Objects.requireNonNull(variable.getKey(), "variable name");
            String value = Objects.requireNonNull(variable.getValue(), () -> "value of " + name);
            if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("invalid environment variable: " + name);
            }
        }
        command = List.copyOf(command);
        environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
    }

    /**
     * The service's own values of the named variables, for an explicit inheritance such as
     * {@code serviceVariables(BASIC_VARIABLES)}; variables the service does not have are left out.
     *
     * @return a new modifiable map, in the order of {@code names}
     */
    public static Map<String, String> serviceVariables(Collection<String> names) {
        Map<String, String> service = System.getenv();
        Map<String, String> picked = new LinkedHashMap<>();
        for (String name : names) {
            String value = service.get(name);
            if (value != null) {
                picked.put(name, value);
            }
        }
        return picked;
    }
}

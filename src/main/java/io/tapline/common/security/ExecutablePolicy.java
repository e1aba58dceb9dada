package io.tapline.common.security;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.InvalidInputException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The optional allow-list of directories for plugin executables
 * ({@code tapline.security.executable-dirs}). Paths are compared after normalisation, as written,
 * without following symbolic links: whoever may write into an allowed directory decides what it
 * holds. Without the setting every executable is allowed.
 */
@ApplicationScoped
public class ExecutablePolicy {

    private final List<Path> dirs;

    @Inject
    public ExecutablePolicy(TaplineConfig config) {
        this(config.security().executableDirs().orElse(List.of()));
    }

    /** @param dirs the allowed directories; empty allows everything */
    public ExecutablePolicy(List<Path> dirs) {
        this.dirs = dirs.stream().map(d -> d.toAbsolutePath().normalize()).toList();
    }

    /** True when an allow-list is configured. */
    public boolean restricted() {
        return !dirs.isEmpty();
    }

    /**
     * Checks an executable as a plugin declares it: an absolute path must lie in an allowed
     * directory; a command name is checked when a run resolves it ({@link #violation}).
     *
     * @throws InvalidInputException 400 on field {@code executable}
     */
    public void checkDeclared(String executable) {
        checkDeclared("executable", executable);
    }

    /**
     * Checks a program as a plugin declares it in {@code field} (its {@code executable}, or its
     * {@code python} in {@code extras.python}): an absolute path must lie in an allowed directory.
     *
     * @throws InvalidInputException 400 on {@code field}
     */
    public void checkDeclared(String field, String executable) {
        if (!restricted() || executable == null || !executable.trim().startsWith("/")) {
            return;
        }
        Path p = Path.of(executable.trim()).normalize();
        if (!allowed(p)) {
            throw InvalidInputException.field(field, "must lie in one of the directories allowed by"
                    + " tapline.security.executable-dirs (" + String.join(", ", dirs.stream().map(Path::toString).toList())
                    + ")");
        }
    }

    /**
     * Checks the executable a run is about to start.
     *
     * @param component "extractor", "loader", "mapper:NAME" or "transform", for the message
     * @param executable command name or absolute path, as the plugin declares it
     * @param pathEnv the {@code PATH} of the process's environment, which the process supervisor
     *     looks command names up in (the service's, overridden by plugin and pipeline env)
     * @param workingDirectory the process's working directory (relative {@code PATH} entries)
     * @return a readable reason when it is not allowed, else empty (also when a command is not
     *     found at all: starting it then fails with the usual message)
     */
    public Optional<String> violation(String component, String executable, String pathEnv, Path workingDirectory) {
        if (!restricted()) {
            return Optional.empty();
        }
        Optional<Path> resolved = resolve(executable, pathEnv, workingDirectory);
        if (resolved.isEmpty() || allowed(resolved.get())) {
            return Optional.empty();
        }
        return Optional.of("the " + component + " executable " + resolved.get() + " (" + executable + ") is outside the"
                + " directories allowed by tapline.security.executable-dirs ("
                + String.join(", ", dirs.stream().map(Path::toString).toList()) + ")");
    }

    /**
     * The file a command name or path starts, found as
     * {@link io.tapline.connector.ProcessSupervisor} finds it: a name with a {@code /} as is
     * (against the working directory), else the first executable file of that name in a
     * {@code PATH} entry (relative entries, and an empty one as {@code .}, against the working
     * directory).
     */
    public static Optional<Path> resolve(String executable, String pathEnv, Path workingDirectory) {
        String e = executable.trim();
        if (e.indexOf('/') >= 0) {
            return Optional.of(workingDirectory.resolve(e).toAbsolutePath().normalize());
        }
        if (pathEnv == null) {
            return Optional.empty();
        }
        for (String dir : pathEnv.split(File.pathSeparator, -1)) {
            Path candidate = workingDirectory.resolve(dir.isEmpty() ? "." : dir).resolve(e).toAbsolutePath().normalize();
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private boolean allowed(Path p) {
        return dirs.stream().anyMatch(p::startsWith);
    }
}

package io.tapline.common.security;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code executor: meltano} pipelines may point at: the {@code meltano} executable
 * ({@code tapline.meltano.executable}) must satisfy {@code tapline.security.executable-dirs} like
 * any plugin executable; {@code meltanoProjectDir} must lie in one of
 * {@code tapline.meltano.project-dirs} when that is set; and {@code meltanoStateBackendDir}, a
 * directory the service writes and deletes in, must lie in one of
 * {@code tapline.meltano.state-backend-roots} (unset: no pipeline may name its own). Paths are
 * compared normalised, as written. Checked when a pipeline is created or updated (400) and again
 * when a run starts (the run fails with the reason).
 */
@ApplicationScoped
public class MeltanoPolicy {

    private final List<Path> projectDirs;
    private final List<Path> backendRoots;
    private final ExecutablePolicy executables;
    private final String executable;

    @Inject
    public MeltanoPolicy(TaplineConfig config, ExecutablePolicy executables) {
        this(config.meltano().projectDirs().orElse(List.of()), config.meltano().stateBackendRoots().orElse(List.of()),
                executables, config.meltano().executable());
    }

    /**
     * @param projectDirs allowed roots of project directories; empty allows any absolute path
     * @param backendRoots allowed roots of per-pipeline state backend directories; empty allows none
     * @param executables the executable allow-list
     * @param executable the configured {@code meltano} command
     */
    public MeltanoPolicy(List<Path> projectDirs, List<Path> backendRoots, ExecutablePolicy executables,
                         String executable) {
        this.projectDirs = projectDirs.stream().map(d -> d.toAbsolutePath().normalize()).toList();
        this.backendRoots = backendRoots.stream().map(d -> d.toAbsolutePath().normalize()).toList();
        this.executables = executables;
        this.executable = executable.trim();
    }

    /**
     * The field errors of a meltano pipeline's paths (empty when allowed).
     *
     * @param projectDir {@code meltanoProjectDir}, absolute (checked elsewhere), or null
     * @param stateBackendDir {@code meltanoStateBackendDir}, or null
     */
    public List<Problem.FieldError> check(String projectDir, String stateBackendDir) {
        List<Problem.FieldError> errors = new ArrayList<>();
        projectDirViolation(projectDir).ifPresent(m -> errors.add(new Problem.FieldError("meltanoProjectDir", m)));
        backendDirViolation(stateBackendDir).ifPresent(m -> errors.add(new Problem.FieldError("meltanoStateBackendDir", m)));
        executableViolation(System.getenv("PATH"), Path.of("/")).ifPresent(m -> errors.add(
                new Problem.FieldError("executor", m)));
        return errors;
    }

    /**
     * Why a run of a meltano pipeline may not start, or empty.
     *
     * @param pathEnv the {@code PATH} meltano would be looked up in
     */
    public Optional<String> violation(String projectDir, String stateBackendDir, String pathEnv, Path workingDirectory) {
        return projectDirViolation(projectDir).map(m -> "meltanoProjectDir " + m)
                .or(() -> backendDirViolation(stateBackendDir).map(m -> "meltanoStateBackendDir " + m))
                .or(() -> executableViolation(pathEnv, workingDirectory));
    }

    private Optional<String> executableViolation(String pathEnv, Path workingDirectory) {
        return executables.violation("meltano", executable, pathEnv, workingDirectory)
                .map(m -> m + "; set tapline.meltano.executable to a meltano inside them");
    }

    private Optional<String> projectDirViolation(String dir) {
        if (dir == null || projectDirs.isEmpty() || within(dir, projectDirs)) {
            return Optional.empty();
        }
        return Optional.of("must lie in one of the directories allowed by tapline.meltano.project-dirs ("
                + names(projectDirs) + ")");
    }

    private Optional<String> backendDirViolation(String dir) {
        if (dir == null) {
            return Optional.empty();
        }
        if (backendRoots.isEmpty()) {
            return Optional.of("is not allowed: no tapline.meltano.state-backend-roots are configured (the service"
                    + " writes and deletes state files there); leave it out to use tapline.meltano.state-backend-dir"
                    + " or a private directory per run");
        }
        if (within(dir, backendRoots)) {
            return Optional.empty();
        }
        return Optional.of("must lie in one of the directories allowed by tapline.meltano.state-backend-roots ("
                + names(backendRoots) + ")");
    }

    private static boolean within(String dir, List<Path> roots) {
        Path p = Path.of(dir).toAbsolutePath().normalize();
        return roots.stream().anyMatch(p::startsWith);
    }

    private static String names(List<Path> dirs) {
        return String.join(", ", dirs.stream().map(Path::toString).toList());
    }
}

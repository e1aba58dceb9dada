package io.tapline.common.config;

import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Managed virtual environments of plugins with a {@code pip_url}, as Meltano installs them.
 *
 * <p>Mapped under {@code tapline.plugins} as {@link TaplineConfig.Plugins}.
 */
public interface PluginsSettings {
    /** Root of the environments, {@code <dir>/<type>/<name>/venv} (Meltano: {@code .meltano/<type>/<name>/venv}); a cache each replica can rebuild. */
    @WithDefault(".tapline/plugins")
    Path dir();

    /** Interpreter that builds the environment of a plugin without its own {@code python}: a command on PATH or an absolute path. */
    @WithDefault("python3")
    String python();

    /** pip options placed before every pip_url (index, proxy, {@code --no-index}, {@code --find-links=...}); comma-separated. */
    Optional<List<String>> pipArgs();

    /**
     * Wheelhouses: directories (inside the pod: a mounted volume) or URLs of pages listing wheels
     * and sdists, each passed to pip and uv as {@code --find-links} on every install (beside
     * {@link #pipArgs()}, and to the build environments pip makes); comma-separated. With
     * {@code --no-index} in pip-args (or {@code PIP_NO_INDEX}), they are the only source: they
     * must hold every distribution the pip_urls need, and setuptools and wheel for source trees
     * and sdists (see {@link #buildIsolation()}).
     */
    Optional<List<String>> findLinks();

    /**
     * How pip builds a source tree or sdist: {@code on}, pip's default (build isolation: the
     * build's requirements, such as setuptools and wheel, are installed from the index or
     * {@link #findLinks()} into a separate build environment); {@code off}, setuptools and wheel
     * are installed into the plugin's environment first, from the wheelhouse or, failing that,
     * from the plugin's python's own site-packages, never from an index, and pip runs with
     * {@code --no-build-isolation}; {@code auto}, as {@code on}, and when pip could not get the
     * build requirements (offline, no index, a wheelhouse without them) the install is repeated
     * as {@code off}.
     */
    @WithDefault("auto")
    BuildIsolation buildIsolation();

    /** Install a plugin that a run needs and this replica has not installed, as a stage of the run. */
    @WithDefault("true")
    boolean autoInstall();

    /** Longest an install may take; it is stopped (and fails) beyond. */
    @WithDefault("15m")
    Duration installTimeout();

    /** {@code auto} (uv when on PATH, else venv + pip), {@code pip} or {@code uv}. */
    @WithDefault("auto")
    String installer();

    /** Characters of an install's output kept in its record (the newest; the run log gets every line). */
    @WithDefault("65536")
    int logMaxChars();

    /** Values of {@link #buildIsolation()}, written {@code auto}, {@code on}, {@code off}. */
    enum BuildIsolation {
        /** Isolated builds, and a build without isolation when the isolated one cannot get its requirements. */
        AUTO,
        /** Always pip's isolated builds. */
        ON,
        /** Never isolated: setuptools and wheel are put into the plugin's environment first. */
        OFF
    }
}

package io.tapline.plugin;

import io.tapline.common.security.ExecutablePolicy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks that tell, when a plugin is saved or read, what would make its runs fail on this
 * replica, long before the night run: today, an executable that is not found. The checks are
 * local to the replica that answers (each replica has its own connectors); a full check that
 * starts the connector is {@code POST /api/v1/plugins/{type}/{name}:test}.
 */
public final class PluginChecks {

    private PluginChecks() {
    }

    /**
     * The warnings of a plugin, as the {@code warnings} list of its responses.
     *
     * @param pluginPath the plugin env's {@code PATH} (which replaces the service's for its
     *     process), or null to use the service's
     * @param pipUrl the Meltano {@code pip_url}, or null
     * @return readable sentences; empty when nothing was found
     */
    public static List<String> warnings(PluginType type, String name, String executable, String pluginPath,
                                        String pipUrl) {
        if (executable == null || executable.isBlank()) {
            return List.of();
        }
        String pathEnv = pluginPath != null ? pluginPath : System.getenv("PATH");
        Path cwd = Path.of("").toAbsolutePath();
        boolean found = ExecutablePolicy.resolve(executable, pathEnv, cwd)
                .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).isPresent();
        if (found) {
            return List.of();
        }
        String where = executable.indexOf('/') >= 0 ? "is not an executable file" : "was not found on PATH";
        return List.of("The executable '" + executable + "' " + where + " on this replica, so runs of this plugin"
                + " fail here: install it on every replica" + (pipUrl == null ? "" : " (Tapline does not install"
                + " pip_url '" + pipUrl + "'; it is kept for the meltano.yml export)") + ", then check it with POST"
                + " /api/v1/plugins/" + type.id() + "/" + name + ":test.");
    }
}

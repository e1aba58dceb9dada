package io.tapline.plugin;

import io.tapline.common.security.ExecutablePolicy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks that tell, when a plugin is saved or read, what would make its runs fail on this
 * replica, long before the night run: today, an executable that is not found. The checks are
 * local to the replica that answers (each replica has its own connectors). A plugin with a
 * {@code pip_url} gets none: the service installs it (its {@code install} field says whether
 * this replica has), unless that pip_url holds a credential in clear.
 */
public final class PluginChecks {

    private PluginChecks() {
    }

    /**
     * The warnings of a plugin, as the {@code warnings} list of its responses.
     *
     * @param pluginPath the plugin env's {@code PATH} (which replaces the service's for its
     *     process), or null to use the service's
     * @param pipUrl the Meltano {@code pip_url}, or null (with one: no warning)
     * @return readable sentences; empty when nothing was found
     */
    public static List<String> warnings(PluginType type, String name, String executable, String pluginPath,
                                        String pipUrl) {
        if (io.tapline.plugin.install.PipUrl.hasCredential(pipUrl)) {
            return List.of("The pip_url holds a credential in clear (shown here as ********); write it as a"
                    + " reference, such as git+https://user:${secret:NAME}@host/..., so that it is read from the"
                    + " secrets directory only when the plugin is installed.");
        }
        if (executable == null || executable.isBlank() || pipUrl != null) {
            // a plugin with a pip_url is installed by the service before its first run here; its
            // response's "install" field tells whether this replica has installed it
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
                + " fail here: install it on every replica, or give the plugin a pip_url so that Tapline installs it"
                + " (README \"Connectors install themselves\"); POST /api/v1/plugins/" + type.id() + "/" + name
                + ":test then checks it.");
    }
}

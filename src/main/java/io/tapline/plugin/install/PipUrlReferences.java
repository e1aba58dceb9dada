package io.tapline.plugin.install;

import java.util.Set;

/**
 * Resolves the references in a pip_url at install time only (the port through which the install
 * reaches config resolution, which a higher layer owns: {@code invocation.InstallReferences}).
 * A pip_url may hold {@code ${secret:NAME}}, {@code ${env:NAME}}, {@code ${file:/path}} and
 * Meltano's {@code ${NAME}} / {@code $NAME} (the plugin's own env, then the inherited service
 * variables), as Meltano expands environment variables in {@code pip_url} before it installs:
 * {@code git+https://ci:${secret:github-token}@github.com/acme/tap-x.git}. The stored pip_url,
 * the API, exports, the environment's fingerprint and marker keep the reference, never the value.
 */
public interface PipUrlReferences {

    /**
     * The pip_url with its references resolved.
     *
     * @param target the plugin being installed (its env for {@code ${NAME}})
     * @param url the parsed pip_url as stored
     * @return the resolved words and every value read from a secret, a file or the service's
     *     environment (masked in the install log)
     * @throws IllegalArgumentException when a reference cannot be resolved (the message names the
     *     reference and the plugin, never a value) or resolves to a pip option
     */
    Resolved resolve(PluginInstallService.Target target, PipUrl url);

    /**
     * A resolved pip_url.
     *
     * @param url the words pip receives
     * @param secrets the values to mask wherever the install's output goes
     */
    record Resolved(PipUrl url, Set<String> secrets) {
    }
}

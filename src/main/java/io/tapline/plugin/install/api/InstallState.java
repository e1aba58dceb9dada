package io.tapline.plugin.install.api;

/**
 * Whether a plugin with a pip_url is installed on the replica that answers (field {@code install}
 * of plugin responses; null for plugins without a pip_url).
 *
 * @param installed true when its environment matches the current pip_url and python
 * @param outdated true when an environment exists but was built from another pip_url or python
 * @param distribution the distribution providing the executable, when installed
 * @param version its version (from its METADATA), when installed
 * @param installedAt when the environment was finished (ISO-8601 UTC), when installed
 * @param environment the environment's path on this replica
 * @param executable the path the plugin's executable resolves to (inside the environment's bin/)
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record InstallState(boolean installed, boolean outdated, String distribution, String version,
                           String installedAt, String environment, String executable) {
}

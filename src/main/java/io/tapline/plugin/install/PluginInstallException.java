package io.tapline.plugin.install;

/**
 * A plugin a run needs could not be installed (or may not be); the message is the readable reason
 * (pip's last error lines, or what to do). Not retryable: the same pip_url fails again.
 */
public class PluginInstallException extends RuntimeException {

    public PluginInstallException(String reason) {
        super(reason);
    }
}

package io.tapline.plugin.install.api;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * An install of a plugin's pip_url on one replica, as the API shows it.
 *
 * @param id the install's id
 * @param type plugin type (extractors, loaders, ...)
 * @param name plugin name
 * @param status RUNNING, SUCCEEDED or FAILED
 * @param trigger API ({@code :install}) or RUN (a run needed it)
 * @param runId the run that needed it, or null
 * @param instanceId the replica that installs
 * @param environment the environment's path on that replica
 * @param pipUrl the pip_url, credentials in URLs masked
 * @param python the interpreter that builds the environment
 * @param distribution the distribution providing the executable, once known
 * @param version its version, once known
 * @param failureType {@code installation} when it failed, else null
 * @param reason why it failed (pip's last error lines), else null
 * @param retryable always false for a failure: the same pip_url fails again until it or the index changes
 * @param startedAt start (UTC)
 * @param endedAt end (UTC), or null while running
 * @param durationMs milliseconds from start to end, or null while running
 * @param log the newest part of the output (masked); omitted in lists
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record InstallResponse(long id, String type, String name, String status, String trigger, UUID runId,
                              String instanceId, String environment, String pipUrl, String python,
                              String distribution, String version, String failureType, String reason,
                              boolean retryable, OffsetDateTime startedAt, OffsetDateTime endedAt, Long durationMs,
                              String log) {
}

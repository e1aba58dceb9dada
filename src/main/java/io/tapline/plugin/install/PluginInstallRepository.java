package io.tapline.plugin.install;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;

/** Queries and guarded status updates of {@link PluginInstall}. */
@ApplicationScoped
public class PluginInstallRepository implements PanacheRepository<PluginInstall> {

    /** The newest installs of a plugin (every replica), newest first. */
    public List<PluginInstall> latest(long pluginId, int limit) {
        return find("pluginId = ?1 order by id desc", pluginId).page(0, limit).list();
    }

    /**
     * Ends a RUNNING install (compare-and-set on the status).
     *
     * @return false when it was no longer RUNNING
     */
    public boolean finish(long id, PluginInstall.Status status, String distribution, String version, String reason,
                          String log, OffsetDateTime now) {
        return update("status = ?1, distribution = ?2, distVersion = ?3, reason = ?4, failureType = ?5, log = ?6,"
                        + " endedAt = ?7 where id = ?8 and status = ?9", status, distribution, version, reason,
                status == PluginInstall.Status.FAILED ? "installation" : null, log, now, id,
                PluginInstall.Status.RUNNING) == 1;
    }

    /** Stores the output so far of a RUNNING install. */
    public void progress(long id, String log) {
        update("log = ?1 where id = ?2 and status = ?3", log, id, PluginInstall.Status.RUNNING);
    }

    /** Refreshes the heartbeat of the given installs that are still RUNNING. */
    public int heartbeat(Collection<Long> ids, OffsetDateTime now) {
        return update("heartbeatAt = ?1 where id in ?2 and status = ?3", now, ids, PluginInstall.Status.RUNNING);
    }

    /**
     * Fails the RUNNING installs of one environment other than {@code current} whose owner is gone:
     * their heartbeat (or, never refreshed, their start) is older than {@code staleBefore}. An
     * install whose JVM still beats (installing on another replica's filesystem under the same
     * path, or waiting for the file lock) is left alone.
     *
     * @return how many were failed
     */
    public int failInterrupted(String environment, long current, String reason, OffsetDateTime now,
                               OffsetDateTime staleBefore) {
        return update("status = ?1, failureType = 'installation', reason = ?2, endedAt = ?3 where environment = ?4"
                        + " and status = ?5 and id <> ?6 and coalesce(heartbeatAt, startedAt) < ?7",
                PluginInstall.Status.FAILED, reason, now, environment, PluginInstall.Status.RUNNING, current,
                staleBefore);
    }
}

package io.tapline.run;

import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.ActivateRequestContext;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens run logs and serves them: from the local file when this replica ran the run, else from the
 * tail kept in the database (so any replica can answer), through {@link RunLogFollowers}.
 */
@ApplicationScoped
public class RunLogs {

    /** Logger of the run log lines echoed in runner mode. */
    private static final org.jboss.logging.Logger RUN_LOG = org.jboss.logging.Logger.getLogger("io.tapline.run.log");
    private final Map<UUID, RunLog> open = new ConcurrentHashMap<>();
    private final TaplineConfig config;
    private final Clock clock;

    @Inject
    EntityManager em;

    public RunLogs(TaplineConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    /**
     * Opens the log of a run that starts on this replica, masking {@code secrets}; in runner mode
     * its lines also go to stdout.
     */
    public RunLog open(UUID runId, List<String> secrets) throws IOException {
        RunLog log = new RunLog(path(runId), config.runner().logMaxBytes(), config.runner().logTailBytes(), secrets, clock);
        if (config.runner().singleRun()) {
            // Runner mode: the run's log is the pod's log too, in the console's format.
            log.echoTo(line -> RUN_LOG.info(line));
        }
        open.put(runId, log);
        return log;
    }

    /** Closes and forgets a run's log (the file stays). */
    public void close(UUID runId) {
        RunLog log = open.remove(runId);
        if (log != null) {
            log.close();
        }
    }

    /** The log file of a run on this replica. */
    public Path path(UUID runId) {
        return config.runner().logsDir().resolve(runId + ".log");
    }

    /** The log of a run that is being written on this replica, or null. */
    public RunLog live(UUID runId) {
        return open.get(runId);
    }

    /**
     * The tail of a run's log kept in the database.
     *
     * @param bytes the tail, UTF-8 (whole lines)
     * @param total bytes logged so far; the tail ends at this offset
     * @param ended true when the run is terminal
     */
    public record Tail(byte[] bytes, long total, boolean ended) {
    }

    /** The tail kept in the database for a run, or null when the run does not exist. */
    @ActivateRequestContext
    public Tail tail(UUID runId) {
        List<?> rows = em.createNativeQuery("select log_tail, log_bytes, status in ('SUCCEEDED','FAILED','CANCELLED','SKIPPED')"
                + " from pipeline_run where id = :id").setParameter("id", runId).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) rows.get(0);
        String tail = row[0] == null ? "" : (String) row[0];
        return new Tail(tail.getBytes(StandardCharsets.UTF_8), ((Number) row[1]).longValue(), (Boolean) row[2]);
    }

    /** True when the run is terminal or gone. */
    @ActivateRequestContext
    public boolean ended(UUID runId) {
        List<?> rows = em.createNativeQuery("select status from pipeline_run where id = :id")
                .setParameter("id", runId).getResultList();
        return rows.isEmpty() || RunStatus.valueOf((String) rows.get(0)).isTerminal();
    }

}

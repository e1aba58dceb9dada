package io.tapline.run;

import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.ActivateRequestContext;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens run logs and serves them: from the local file when this replica ran the run, else from the
 * tail kept in the database (so any replica can answer). {@code follow} streams until the run ends.
 */
@ApplicationScoped
public class RunLogs {

    private static final long FOLLOW_POLL_MS = 500;

    private final Map<UUID, RunLog> open = new ConcurrentHashMap<>();
    private final TaplineConfig config;
    private final Clock clock;

    @Inject
    EntityManager em;

    public RunLogs(TaplineConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    /** Opens the log of a run that starts on this replica, masking {@code secrets}. */
    public RunLog open(UUID runId, List<String> secrets) throws IOException {
        RunLog log = new RunLog(path(runId), config.runner().logMaxBytes(), config.runner().logTailBytes(), secrets, clock);
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

    /**
     * Writes the log of a run to {@code os}; with {@code follow}, keeps writing new lines until the
     * run has ended and everything was written.
     */
    public void write(UUID runId, OutputStream os, boolean follow) throws IOException {
        Path file = path(runId);
        RunLog live = open.get(runId);
        if (live != null) {
            live.flush();
        }
        if (Files.exists(file)) {
            writeFile(runId, file, os, follow);
        } else {
            writeFromDatabase(runId, os, follow);
        }
    }

    private void writeFile(UUID runId, Path file, OutputStream os, boolean follow) throws IOException {
        byte[] buf = new byte[65536];
        try (InputStream in = Files.newInputStream(file)) {
            while (true) {
                int n = in.read(buf);
                if (n > 0) {
                    os.write(buf, 0, n);
                    continue;
                }
                if (!follow) {
                    return;
                }
                RunLog live = open.get(runId);
                if (live == null && ended(runId)) {
                    int m;
                    while ((m = in.read(buf)) > 0) {
                        os.write(buf, 0, m);
                    }
                    os.flush();
                    return;
                }
                if (live != null) {
                    live.flush();
                }
                os.flush();
                sleep();
            }
        }
    }

    private void writeFromDatabase(UUID runId, OutputStream os, boolean follow) throws IOException {
        long sent = 0;
        while (true) {
            Object[] row = tail(runId);
            if (row == null) {
                return;
            }
            String tail = (String) row[0];
            long total = ((Number) row[1]).longValue();
            boolean ended = (Boolean) row[2];
            byte[] bytes = tail.getBytes(StandardCharsets.UTF_8);
            long start = total - bytes.length;
            if (sent < start && sent > 0) {
                os.write(("... " + (start - sent) + " byte(s) not kept in the database\n").getBytes(StandardCharsets.UTF_8));
            }
            long from = Math.max(sent, start);
            if (from < total) {
                os.write(bytes, (int) (from - start), (int) (total - from));
                sent = total;
            }
            os.flush();
            if (!follow || ended) {
                return;
            }
            sleep();
        }
    }

    @ActivateRequestContext
    Object[] tail(UUID runId) {
        List<?> rows = em.createNativeQuery("select log_tail, log_bytes, status in ('SUCCEEDED','FAILED','CANCELLED','SKIPPED')"
                + " from pipeline_run where id = :id").setParameter("id", runId).getResultList();
        return rows.isEmpty() ? null : (Object[]) rows.get(0);
    }

    @ActivateRequestContext
    boolean ended(UUID runId) {
        List<?> rows = em.createNativeQuery("select status from pipeline_run where id = :id")
                .setParameter("id", runId).getResultList();
        return rows.isEmpty() || RunStatus.valueOf((String) rows.get(0)).isTerminal();
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(FOLLOW_POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}

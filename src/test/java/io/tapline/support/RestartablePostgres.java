package io.tapline.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * An embedded PostgreSQL of a test's own that can be stopped and started again on the same data
 * directory and port, to simulate a database outage under a running service. (The shared
 * {@link TestPostgres} server must never stop under other tests.)
 */
public final class RestartablePostgres implements AutoCloseable {

    private final Path dataDir;
    private final int port;
    private EmbeddedPostgres server;

    private RestartablePostgres(Path dataDir, int port) {
        this.dataDir = dataDir;
        this.port = port;
    }

    /** Initialises a new data directory and starts the server on a free port. */
    public static RestartablePostgres start() {
        try {
            RestartablePostgres pg = new RestartablePostgres(Files.createTempDirectory("tapline-outage-pg"),
                    ServiceProcess.freePort());
            pg.startAgain();
            return pg;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the server (again) on the same data directory and port. */
    public synchronized void startAgain() {
        if (server != null) {
            return;
        }
        try {
            server = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setServerConfig("fsync", "off")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the server ({@code pg_ctl stop -m fast}: open connections are cut). */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            server = null;
        }
    }

    /** A database on this server for a service: the {@code postgres} database, schema {@code tapline}. */
    public TestPostgres.Database database() {
        return new TestPostgres.Database(null, "jdbc:postgresql://localhost:" + port + "/postgres", "postgres",
                "postgres", "tapline", null);
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public void close() {
        stop();
        try (var paths = Files.walk(dataDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temporary directory
        }
    }
}

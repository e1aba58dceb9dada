package io.tapline.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.util.Map;

/**
 * The test resource that gives every {@code @QuarkusTest} application a fresh, empty database on
 * the tests' PostgreSQL server ({@link TestPostgres}: {@code TEST_DB_URL}, else Testcontainers,
 * else embedded), dropped when the application stops. {@link #jdbcUrl()} and friends expose the
 * connection for tests that read the database directly.
 */
public class TestDatabase implements QuarkusTestResourceLifecycleManager {

    private static final Logger LOG = Logger.getLogger(TestDatabase.class);
    private static volatile TestPostgres.Database current;

    private TestPostgres.Database database;

    @Override
    public Map<String, String> start() {
        database = TestPostgres.shared().createDatabase("tapline_test");
        current = database;
        LOG.infof("Tests use PostgreSQL at %s (schema %s)", database.url(), database.schema());
        return Map.of(
                "quarkus.datasource.jdbc.url", database.url(),
                "quarkus.datasource.username", database.user(),
                "quarkus.datasource.password", database.password(),
                "tapline.database.embedded", "false",
                "tapline.database.schema", database.schema());
    }

    @Override
    public void stop() {
        if (database != null) {
            database.close();
        }
    }

    /** JDBC URL of the tests' database (set once the resource started). */
    public static String jdbcUrl() {
        return current.url();
    }

    /** User name for {@link #jdbcUrl()}. */
    public static String user() {
        return current.user();
    }

    /** Password for {@link #jdbcUrl()}. */
    public static String password() {
        return current.password();
    }

    /** Schema holding Tapline's tables. */
    public static String schema() {
        return current.schema();
    }

    /** A new JDBC connection to the tests' database with the Tapline schema on the search path. */
    public static Connection connect() throws java.sql.SQLException {
        return current.connect();
    }
}

package io.tapline.common.db;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.TestDatabase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The migrations build the schema from an empty database, into their own schema only. */
@QuarkusTest
class MigrationTest {

    @Test
    void migratesAnEmptySchemaAndCreatesNoMeltanoTableNames() throws Exception {
        String schema = "migration_check_" + System.nanoTime();
        Flyway flyway = Flyway.configure()
                .dataSource(TestDatabase.jdbcUrl(), TestDatabase.user(), TestDatabase.password())
                .schemas(schema).defaultSchema(schema).createSchemas(true)
                .locations("classpath:db/migration")
                .load();
        MigrateResult result = flyway.migrate();
        assertTrue(result.success);
        assertTrue(result.migrationsExecuted >= 1);
        assertEquals(0, flyway.migrate().migrationsExecuted, "a second migrate is a no-op");

        List<String> tables = new ArrayList<>();
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select table_name from information_schema.tables where table_schema = '"
                     + schema + "'")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
            s.execute("drop schema " + schema + " cascade");
        }
        assertTrue(tables.containsAll(List.of("plugin", "pipeline", "pipeline_mapper")), tables.toString());
        for (String meltano : List.of("state", "runs", "job")) {
            assertFalse(tables.contains(meltano), "must never create Meltano's table " + meltano);
        }
    }

    @Test
    void theServiceSchemaIsMigratedAtStart() throws Exception {
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from flyway_schema_history where success")) {
            rs.next();
            assertTrue(rs.getInt(1) >= 1);
        }
    }
}

package io.tapline.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.RestAssured;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.awaitility.Awaitility.await;

/** Helpers for the integration tests that run the packaged service. */
public final class ItSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ItSupport() {
    }

    /** Points RestAssured (and so {@link Api} and {@link Connectors}) at {@code service}. */
    public static void use(ServiceProcess service) {
        RestAssured.baseURI = "http://localhost";
        RestAssured.port = service.port();
    }

    /** Puts RestAssured back to its defaults. */
    public static void reset() {
        RestAssured.reset();
    }

    /** The first row of a query as column name -> value, or empty. */
    public static Optional<Map<String, Object>> row(Connection c, String sql, Object... params) throws SQLException {
        List<Map<String, Object>> rows = rows(c, sql, params);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    /** Every row of a query as column name -> value. */
    public static List<Map<String, Object>> rows(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                List<Map<String, Object>> out = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        row.put(md.getColumnLabel(i), rs.getObject(i));
                    }
                    out.add(row);
                }
                return out;
            }
        }
    }

    /** Parses JSON text. */
    public static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** JSON of a value, as a tree. */
    public static JsonNode tree(Object value) {
        return JSON.valueToTree(value);
    }

    /** The pids in a connector's {@code pid_file} (one per line); empty when it does not exist yet. */
    public static List<Long> pids(Path pidFile) {
        try {
            if (!Files.exists(pidFile)) {
                return List.of();
            }
            return Files.readAllLines(pidFile).stream().map(String::trim).filter(s -> !s.isEmpty())
                    .map(Long::parseLong).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True while a process with this pid runs (zombies count as gone). */
    public static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Waits until none of these processes runs any more. */
    public static void awaitGone(List<Long> pids, Duration timeout) {
        await("processes " + pids + " gone").atMost(timeout).pollInterval(Duration.ofMillis(100))
                .until(() -> pids.stream().noneMatch(ItSupport::alive));
    }

    /** Kills these processes (and their descendants) if they still run; for test cleanup. */
    public static void killAll(List<Long> pids) {
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
        }
    }
}

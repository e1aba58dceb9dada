package io.tapline.schedule;

import io.tapline.support.Api;
import io.tapline.support.TestDatabase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;

/** Pipelines and run rows for schedule tests, made through the API or written directly with JDBC. */
final class Fixtures {

    private Fixtures() {
    }

    /** An extractor and a loader, created once per call. */
    record Plugins(String tap, String target) {
        static Plugins create() {
            return new Plugins(Api.plugin("extractors", unique("tap-sched"), "tap-sched"),
                    Api.plugin("loaders", unique("target-sched"), "target-sched"));
        }

        /** Creates a pipeline through the API with the given schedule JSON (the inside of {@code "schedule"}) and returns its id. */
        long pipeline(String name, String scheduleJson) {
            return pipeline(name, scheduleJson, "");
        }

        long pipeline(String name, String scheduleJson, String extra) {
            json().body("{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\",\"stateIdSuffix\":\"%s\",\"schedule\":{%s}%s}"
                            .formatted(name, tap, target, name, scheduleJson, extra.isEmpty() ? "" : "," + extra))
                    .post("/api/v1/pipelines").then().statusCode(201);
            return id(name);
        }
    }

    static long id(String pipeline) {
        return queryLong("select id from pipeline where name = ?", pipeline);
    }

    static long queryLong(String sql, Object... args) {
        try (Connection c = TestDatabase.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static Optional<String> queryString(String sql, Object... args) {
        try (Connection c = TestDatabase.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static int update(String sql, Object... args) {
        try (Connection c = TestDatabase.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void execute(String sql) {
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Inserts a finished run row of a pipeline and returns its id (ids are time-ordered, so call in order). */
    static UUID run(long pipelineId, String status, int attempt) {
        UUID id = io.tapline.common.api.UuidV7.next();
        update("""
                insert into pipeline_run (id, pipeline_id, pipeline_name, state_id, trigger, status, attempt, queued_at, ended_at)
                select ?, id, name, state_id, 'API', ?, ?, now(), case when ? in ('QUEUED', 'RUNNING') then null else now() end
                from pipeline where id = ?
                """, id, status, attempt, status, pipelineId);
        return id;
    }

    /** One scheduled run row, as the test reads it back. */
    record TickRow(long pipelineId, Instant scheduledFor, String status, Instant queuedAt, String errorSummary) {
    }

    /** Rows with a {@code scheduled_for} of the given pipelines. */
    static List<TickRow> ticks(Collection<Long> pipelineIds) {
        String in = pipelineIds.stream().map(String::valueOf).collect(Collectors.joining(","));
        List<TickRow> out = new ArrayList<>();
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pipeline_id, scheduled_for, status, queued_at, error_summary"
                     + " from pipeline_run where scheduled_for is not null and pipeline_id in (" + in + ")"
                     + " order by pipeline_id, scheduled_for")) {
            while (rs.next()) {
                out.add(new TickRow(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3),
                        rs.getTimestamp(4).toInstant(), rs.getString(5)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private static void bind(PreparedStatement s, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Instant t) {
                s.setTimestamp(i + 1, Timestamp.from(t));
            } else {
                s.setObject(i + 1, a);
            }
        }
    }

    /** A store that sees only some pipelines, so tickers in tests ignore the pipelines of other tests. */
    static ScheduleStore only(ScheduleStore store, Set<Long> ids) {
        return new ScheduleStore() {
            @Override
            public List<ScheduledPipeline> loadAll() {
                return store.loadAll().stream().filter(p -> ids.contains(p.id())).toList();
            }

            @Override
            public Optional<ScheduledPipeline> load(long pipelineId) {
                return ids.contains(pipelineId) ? store.load(pipelineId) : Optional.empty();
            }

            @Override
            public Optional<Instant> lastTick(long pipelineId) {
                return store.lastTick(pipelineId);
            }

            @Override
            public Fire fire(ScheduledPipeline pipeline, Instant tick) {
                return store.fire(pipeline, tick);
            }
        };
    }
}

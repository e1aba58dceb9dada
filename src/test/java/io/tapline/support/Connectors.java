package io.tapline.support;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.response.Response;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.awaitility.Awaitility.await;

/** Builds pipelines from the test connectors and runs them through the API. */
public final class Connectors {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The replaying / misbehaving test tap. */
    public static final Path TAP = Path.of("src/test/resources/connectors/test_tap.py").toAbsolutePath();
    /** The acknowledging / misbehaving test target. */
    public static final Path TARGET = Path.of("src/test/resources/connectors/test_target.py").toAbsolutePath();
    /** A stand-in transform. */
    public static final Path UTIL = Path.of("src/test/resources/connectors/test_util.py").toAbsolutePath();

    private Connectors() {
    }

    /** A recorded Singer stream under src/test/resources/singer. */
    public static Path fixture(String name) {
        return Path.of("src/test/resources/singer", name).toAbsolutePath();
    }

    /**
     * Creates an extractor, a loader and a pipeline joining them.
     *
     * @param tapConfig config of the test tap
     * @param targetConfig config of the test target
     * @param pipelineExtra extra pipeline fields (may be empty)
     * @return the pipeline name
     */
    public static String pipeline(Map<String, Object> tapConfig, Map<String, Object> targetConfig,
                                  Map<String, Object> pipelineExtra) {
        return pipeline(TAP, List.of("state", "catalog"), tapConfig, TARGET, targetConfig, pipelineExtra);
    }

    /** As {@link #pipeline(Map, Map, Map)}, with any executables and tap capabilities. */
    public static String pipeline(Path tap, List<String> capabilities, Map<String, Object> tapConfig, Path target,
                                  Map<String, Object> targetConfig, Map<String, Object> pipelineExtra) {
        String tapName = unique("tap");
        String targetName = unique("target");
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", tapName);
        t.put("executable", tap.toString());
        t.put("capabilities", capabilities);
        t.put("config", tapConfig);
        if (capabilities.contains("catalog")) {
            t.put("catalog", Map.of("streams", List.of()));
        }
        json().body(t).post("/api/v1/plugins/extractors").then().statusCode(201);
        // capabilities given (none), so that runs do not first ask the target (--about)
        json().body(Map.of("name", targetName, "executable", target.toString(), "config", targetConfig,
                        "capabilities", List.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String name = unique("pl");
        Map<String, Object> p = new LinkedHashMap<>(pipelineExtra);
        p.put("name", name);
        p.put("extractor", tapName);
        p.put("loader", targetName);
        json().body(p).post("/api/v1/pipelines").then().statusCode(201);
        return name;
    }

    /** Triggers a run and returns its id. */
    public static String trigger(String pipeline, Map<String, Object> body) {
        return json().body(body).post("/api/v1/pipelines/" + pipeline + "/runs").then().statusCode(202)
                .extract().path("id");
    }

    /** Waits until the run reached a terminal status and returns it. */
    public static Response awaitEnd(String runId, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            String s = json().get("/api/v1/runs/" + runId).then().extract().path("status");
            return List.of("SUCCEEDED", "FAILED", "CANCELLED").contains(s);
        });
        return json().get("/api/v1/runs/" + runId);
    }

    /** Waits until the run is RUNNING and its log contains {@code text}. */
    public static void awaitLog(String runId, String text, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() ->
                json().accept("text/plain").get("/api/v1/runs/" + runId + "/log").asString().contains(text));
    }

    /** The state ID of a pipeline. */
    public static String stateId(String pipeline) {
        return json().get("/api/v1/pipelines/" + pipeline).then().extract().path("stateId");
    }

    /** What {@code GET /states/{id}} prints. */
    public static String state(String stateId) {
        return json().get("/api/v1/states/" + stateId).asString();
    }

    /** JSON text of a value. */
    public static String toJson(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

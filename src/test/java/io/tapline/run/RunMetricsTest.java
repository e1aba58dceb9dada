package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tapline.support.Connectors;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run metrics are exported in Prometheus format at {@code /q/metrics}. */
@QuarkusTest
class RunMetricsTest {

    @Inject
    RunMetrics metrics;

    @Test
    void schedulerLagIsExportedAsAHistogram() {
        double before = value(scrape(), "tapline_scheduler_lag_seconds_count", "");
        metrics.schedulerLag(Duration.ofMillis(1500));
        metrics.schedulerLag(Duration.ofSeconds(-1));
        String text = scrape();
        assertEquals(before + 2, value(text, "tapline_scheduler_lag_seconds_count", ""), text);
        assertTrue(text.contains("tapline_scheduler_lag_seconds_bucket{le="), "histogram buckets");
        assertTrue(text.contains("tapline_scheduler_lag_seconds_max"), text);
    }

    @Test
    void aRunRecordsStatusDurationRecordsStateSizeAndTheActiveGauge() {
        assertTrue(scrape().contains("tapline_runs_active "), "the active-runs gauge exists before any run");
        String p = pipeline(Map.of("records", 3, "state_every", 3), Map.of(), Map.of());
        awaitEnd(trigger(p, Map.of()), Duration.ofSeconds(60)).then().body("status", equalTo("SUCCEEDED"));
        String text = scrape();
        String tags = "pipeline=\"" + p + "\"";
        assertEquals(1, value(text, "tapline_runs_total", tags + ",status=\"SUCCEEDED\""), text);
        assertEquals(1, value(text, "tapline_run_duration_seconds_count", tags + ",status=\"SUCCEEDED\""), text);
        assertEquals(3, value(text, "tapline_records_total", tags + ",stream=\"items\""), text);
        assertTrue(value(text, "tapline_state_size_bytes_count", tags) >= 1, text);
        // {"singer_state":{"bookmarks":{"items":{"id":3}}}}
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":3}}}}".length(),
                value(text, "tapline_state_size_bytes_max", tags), text);
        assertEquals(0, value(text, "tapline_runs_active", ""), "no run left on this replica");
    }

    private static String scrape() {
        return RestAssured.given().accept("text/plain").get("/q/metrics").then().statusCode(200).extract().asString();
    }

    /** The value of a sample whose labels start with {@code labels} (0 when absent). */
    private static double value(String text, String name, String labels) {
        Pattern p = Pattern.compile("^" + Pattern.quote(name) + "(\\{" + Pattern.quote(labels) + "[^}]*})? (\\S+)$",
                Pattern.MULTILINE);
        Matcher m = p.matcher(text);
        return m.find() ? Double.parseDouble(m.group(2)) : 0;
    }
}

package io.tapline.demo;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;

import static io.tapline.support.Api.json;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The README's demo: seed, run, add data, run again, and only the new records are extracted. */
@QuarkusTest
class DemoPipelineTest {

    @Inject
    DemoSeeder seeder;

    @Test
    void secondRunExtractsOnlyNewRecords() throws Exception {
        Path work = Path.of("target/test-demo").toAbsolutePath();
        Files.deleteIfExists(work.resolve("people.csv"));
        Files.deleteIfExists(work.resolve("output/people.jsonl"));
        seeder.seed();
        seeder.seed(); // idempotent
        json().get("/api/v1/pipelines/demo").then().statusCode(200)
                .body("stateId", equalTo("dev:tap-demo-to-target-demo"));
        json().queryParam("force", "true").delete("/api/v1/states/dev:tap-demo-to-target-demo");

        String first = Connectors.trigger("demo", Map.of());
        Connectors.awaitEnd(first, Duration.ofSeconds(60)).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("streams.people.records", equalTo(5));
        json().get("/api/v1/states/dev:tap-demo-to-target-demo/bookmarks/people/replication_key_value").then()
                .body(equalTo("\"2024-01-05T12:00:00Z\"\n"));

        Files.writeString(work.resolve("people.csv"), "6,Margaret Hamilton,margaret@example.com,2024-02-01T08:00:00Z\n",
                StandardOpenOption.APPEND);
        String second = Connectors.trigger("demo", Map.of());
        Connectors.awaitEnd(second, Duration.ofSeconds(60)).then()
                .body("status", equalTo("SUCCEEDED"))
                .body("streams.people.records", equalTo(1));
        json().get("/api/v1/states/dev:tap-demo-to-target-demo/bookmarks/people/replication_key_value").then()
                .body(equalTo("\"2024-02-01T08:00:00Z\"\n"));
        assertEquals(6, Files.readAllLines(work.resolve("output/people.jsonl")).size(), "5 records, then 1 more");
    }
}

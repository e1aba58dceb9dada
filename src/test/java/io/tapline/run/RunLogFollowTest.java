package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tapline.support.Connectors;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.tapline.support.Api.as;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 item 1: 500 viewers following run logs ({@code ?follow=true}) do not hold request
 * threads, so the rest of the API and readiness keep answering at once; the 21st follower of one
 * caller and the 201st of one run get 429 problem+json. With one worker thread per follower (the
 * old code) the worker pool (200 threads) was exhausted and every other call waited for the runs
 * to end.
 */
@QuarkusTest
class RunLogFollowTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int CALLERS = 25;
    private static final int PER_CALLER = 20;

    @Test
    void fiveHundredFollowersLeaveTheApiAnswering() throws Exception {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String p = Connectors.pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
            runs.add(Connectors.trigger(p, Map.of()));
        }
        for (String run : runs) {
            Connectors.awaitLog(run, "READY", WAIT);
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        List<CompletableFuture<HttpResponse<InputStream>>> followers = new ArrayList<>();
        // callers 0-9 follow run 0, 10-19 run 1, 20-24 run 2: 200 + 200 + 100 followers
        for (int c = 0; c < CALLERS; c++) {
            String token = Tokens.of("follower-" + c, "viewer");
            String run = runs.get(Math.min(c / 10, 2));
            for (int i = 0; i < PER_CALLER; i++) {
                followers.add(http.sendAsync(follow(run, token), HttpResponse.BodyHandlers.ofInputStream()));
            }
        }
        for (CompletableFuture<HttpResponse<InputStream>> f : followers) {
            assertEquals(200, f.get(60, TimeUnit.SECONDS).statusCode());
        }
        assertEquals(CALLERS * PER_CALLER, followers.size());

        // the rest of the API answers at once
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            RestAssured.given().get("/q/health/ready").then().statusCode(200);
            json().get("/api/v1/pipelines").then().statusCode(200);
            json().get("/api/v1/runs/" + runs.get(0)).then().statusCode(200);
            json().accept("text/plain").get("/api/v1/runs/" + runs.get(2) + "/log").then().statusCode(200);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("with %d followers open: readiness + 3 API calls in %d ms%n", followers.size(), ms);
            assertTrue(ms < 3000, "calls took " + ms + " ms with " + followers.size() + " followers open");
        }

        // caps: per caller, then per run (a fresh caller on a run with 200 followers)
        problem(as(Tokens.of("follower-0", "viewer")).accept("text/plain").queryParam("follow", "true")
                .get("/api/v1/runs/" + runs.get(2) + "/log").then(), 429, "too-many-requests");
        problem(as(Tokens.of("someone-else", "viewer")).accept("text/plain").queryParam("follow", "true")
                .get("/api/v1/runs/" + runs.get(0) + "/log").then(), 429, "too-many-requests");

        // follow is true or false: "1" is refused rather than read as false
        problem(json().accept("text/plain").queryParam("follow", "1").get("/api/v1/runs/" + runs.get(0) + "/log").then(),
                400, "validation");

        // the runs end: every follower gets the whole log and its stream ends
        for (String run : runs) {
            json().post("/api/v1/runs/" + run + "/cancel").then().statusCode(202);
        }
        for (CompletableFuture<HttpResponse<InputStream>> f : followers) {
            try (InputStream in = f.get().body()) {
                String log = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(log.contains("extractor | READY") && log.contains("service | run CANCELLED"), log);
            }
        }
        // closed streams give their places back
        org.awaitility.Awaitility.await().atMost(WAIT).until(() ->
                as(Tokens.of("follower-0", "viewer")).accept("text/plain").queryParam("follow", "true")
                        .get("/api/v1/runs/" + runs.get(0) + "/log").statusCode() == 200);
    }

    private static HttpRequest follow(String run, String token) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/api/v1/runs/" + run
                        + "/log?follow=true")).header("Authorization", Tokens.bearer(token))
                .header("Accept", "text/plain").timeout(Duration.ofSeconds(120)).GET().build();
    }
}

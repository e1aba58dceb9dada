package io.tapline.state;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 item 2: with one 15 MB state stored, many concurrent {@code GET /api/v1/states} calls
 * allocate next to nothing, because the list reads the stored status and never the bodies. The old
 * list read and parsed every body on the page (about 45 MB per call here), so 200 calls allocated
 * gigabytes (and 1,000 at once ran out of memory).
 */
@QuarkusTest
class StateListScaleTest {

    private static final int CALLS = 200;

    @Test
    void listingStatesDoesNotReadTheirBodies() throws Exception {
        String prefix = unique("scale");
        String big = prefix + ":big-to-x";
        StringBuilder body = new StringBuilder("{\"singer_state\": {\"bookmarks\": {");
        for (int i = 0; i < 150; i++) {
            body.append(i == 0 ? "" : ", ").append("\"stream_").append(i).append("\": {\"blob\": \"")
                    .append("x".repeat(100 * 1024)).append("\"}");
        }
        body.append("}}}");
        json().body(body.toString()).put("/api/v1/states/" + big).then().log().ifValidationFails().statusCode(200);
        body = null;
        json().queryParam("pattern", prefix + ":*").get("/api/v1/states").then().statusCode(200)
                .body("items.size()", equalTo(1))
                .body("items[0].stateId", equalTo(prefix + ":big-to-x")).body("items[0].status", equalTo("ok"));

        String token = Tokens.bearer(Tokens.of("lister", "viewer"));
        long before = allocatedBytes();
        ExecutorService pool = Executors.newFixedThreadPool(20);
        long allocated;
        try {
            List<Future<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                calls.add(pool.submit(() -> RestAssured.given().header("Authorization", token)
                        .get("/api/v1/states?limit=500").statusCode()));
            }
            for (Future<Integer> f : calls) {
                assertEquals(200, f.get());
            }
            allocated = allocatedBytes() - before; // before the client threads end and their counts vanish
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("%d state lists with a 15 MB state allocated %d MB in the JVM%n", CALLS, allocated >> 20);
        // Reading the body once per call would already be 200 x 15 MB = 3,000 MB. The count covers every
        // thread of the JVM (the mirror scan and other jobs too), so the bound leaves room for them.
        assertTrue(allocated < 1000L * 1024 * 1024, "list calls allocated " + (allocated >> 20) + " MB");
    }

    /** Bytes allocated so far by all live threads of this JVM (client and service alike). */
    private static long allocatedBytes() {
        com.sun.management.ThreadMXBean t = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long a : t.getThreadAllocatedBytes(t.getAllThreadIds())) {
            sum += Math.max(0, a);
        }
        return sum;
    }
}

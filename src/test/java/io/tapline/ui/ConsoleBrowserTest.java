package io.tapline.ui;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.demo.DemoSeeder;
import io.tapline.support.Connectors;
import io.tapline.support.Tokens;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web console in a real headless Chromium against the running test service: the demo pipeline
 * triggered from the UI, the live log of a running run, the state diff and rollback, the audit
 * trail, what a viewer sees, and hostile text from a connector shown as text. Each page is
 * screenshotted under {@code target/screenshots/}.
 */
@QuarkusTest
class ConsoleBrowserTest {

    private static final String DEMO_STATE = "dev:tap-demo-to-target-demo";
    private static final Duration RUN = Duration.ofSeconds(60);
    /** Text a careless renderer would turn into a script and an image with an onerror handler. */
    private static final String HOSTILE = "<script>window.__xss=1</script><img src=x onerror=\"window.__xss=2\"> & \"quotes\"";

    @TestHTTPResource("/")
    URL root;

    @Inject
    DemoSeeder seeder;

    Browser browser;

    @BeforeEach
    void openBrowser() {
        browser = Browser.open(root);
    }

    @AfterEach
    void closeBrowser(TestInfo info) {
        if (browser != null) {
            browser.consoleLog().forEach(line -> System.out.println("[browser " + info.getDisplayName() + "] " + line));
            browser.close();
        }
    }

    @Test
    void demoRunsFromTheConsoleAndItsBookmarkMovesAndRollsBack() throws Exception {
        Path work = Path.of("target/test-demo").toAbsolutePath();
        Files.deleteIfExists(work.resolve("people.csv"));
        Files.deleteIfExists(work.resolve("output/people.jsonl"));
        seeder.seed();
        json().queryParam("force", "true").delete("/api/v1/states/" + DEMO_STATE);

        browser.signIn(Tokens.admin());
        // The demo pipeline is listed.
        browser.waitFor(By.cssSelector("tr[data-pipeline='demo']"));
        assertTrue(browser.textOf("tr[data-pipeline='demo']").contains("tap-demo → target-demo"));
        browser.screenshot("pipelines-demo-listed");
        browser.assertCleanConsole();

        // Triggering it from the UI shows the run SUCCEEDED with 5 records.
        browser.click(By.cssSelector("tr[data-pipeline='demo'] button[data-action='trigger']"));
        String first = runIdFromUrl();
        browser.waitFor(By.cssSelector("#run-status [data-status='SUCCEEDED']"), RUN);
        assertEquals("5", browser.text("records-total"));
        assertEquals("5", browser.textOf("#streams tr[data-stream='people'] td:nth-child(2)"));
        browser.until(d -> "ended".equals(d.findElement(By.id("log-status")).getAttribute("data-state")));
        // The page was opened right after the trigger, maybe while the run was queued: the log is whole.
        assertTrue(browser.text("log").contains("run SUCCEEDED"), browser.text("log"));
        browser.screenshot("run");
        browser.assertCleanConsole();

        // A second run, from the pipeline page, extracts the new row.
        Files.writeString(work.resolve("people.csv"), "6,Margaret Hamilton,margaret@example.com,2024-02-01T08:00:00Z\n",
                StandardOpenOption.APPEND);
        browser.go("/ui/pipelines/demo");
        browser.click(By.cssSelector("#pipeline-actions button[data-action='trigger']"));
        String second = runIdFromUrl();
        assertFalse(first.equals(second));
        browser.waitFor(By.cssSelector("#run-status [data-status='SUCCEEDED']"), RUN);
        assertEquals("1", browser.text("records-total"));

        browser.go("/ui/pipelines/demo");
        browser.until(d -> d.findElements(By.cssSelector("#timeline .tl-succeeded")).size() >= 2);
        browser.waitFor(By.cssSelector("#records-chart canvas"));
        browser.waitFor(By.cssSelector("#next-fires tbody tr"));
        browser.screenshot("pipeline");
        browser.assertCleanConsole();

        // The state page's diff between the first run's last version and now shows the moved bookmark.
        long firstRunVersion = lastVersionOfRun(first);
        browser.go("/ui/states/" + DEMO_STATE);
        browser.waitFor(By.cssSelector("#history tr[data-version]"));
        new Select(browser.driver.findElement(By.id("diff-from"))).selectByValue(String.valueOf(firstRunVersion));
        WebElement moved = browser.waitFor(By.cssSelector("#diff tr[data-path='singer_state.bookmarks.people.replication_key_value']"));
        assertEquals("\"2024-01-05T12:00:00Z\"", moved.findElement(By.cssSelector(".diff-old")).getText());
        assertEquals("\"2024-02-01T08:00:00Z\"", moved.findElement(By.cssSelector(".diff-new")).getText());
        browser.screenshot("state");
        browser.assertCleanConsole();

        // Rollback from the UI to the first run's version: recorded in the history ...
        browser.click(browser.waitFor(By.cssSelector("#history tr[data-version='" + firstRunVersion
                + "'] button[data-action='rollback']")));
        browser.click(browser.waitFor(By.cssSelector("#confirm[open] #confirm-ok")));
        WebElement rollback = browser.waitFor(By.cssSelector("#history tbody tr:first-child[data-source='ROLLBACK']"));
        assertTrue(rollback.getText().contains(Tokens.ADMIN_SUBJECT), rollback.getText());
        browser.until(d -> browser.textOf("#bookmarks tr[data-stream='people'] .bookmark-value").contains("2024-01-05T12:00:00Z"));
        json().get("/api/v1/states/" + DEMO_STATE + "/bookmarks/people/replication_key_value").then()
                .body(org.hamcrest.Matchers.equalTo("\"2024-01-05T12:00:00Z\"\n"));

        // A bookmark edit from the UI (sent with If-Match) becomes a new version.
        editBookmark("people", "{\"replication_key\": \"updated_at\", \"replication_key_value\": \"2024-01-03T00:00:00Z\"}");
        browser.waitFor(By.cssSelector("#history tbody tr:first-child[data-source='STATE_EDIT']"));
        browser.until(d -> browser.textOf("#bookmarks tr[data-stream='people'] .bookmark-value").contains("2024-01-03T00:00:00Z"));

        // The rollback is in the audit trail.
        browser.go("/ui/audit");
        WebElement audited = browser.waitFor(By.cssSelector("#audit tr[data-action='state.rollback']"));
        assertTrue(audited.getText().contains(DEMO_STATE), audited.getText());
        assertTrue(audited.getText().contains(Tokens.ADMIN_SUBJECT), audited.getText());
        browser.screenshot("audit");
        browser.assertCleanConsole();

        browser.go("/ui/pipelines");
        browser.waitFor(By.cssSelector("tr[data-pipeline='demo'] [data-status='SUCCEEDED']"));
        browser.screenshot("pipelines");
    }

    @Test
    void logFollowsARunningRunLiveAndHostileTextStaysText() throws Exception {
        Path release = Files.createTempDirectory("tapline-ui").resolve("release");
        String pipeline = Connectors.pipeline(Path.of("src/test/resources/connectors/hostile_tap.py").toAbsolutePath(),
                List.of("state"), Map.of("payload", HOSTILE, "release_file", release.toString()), Connectors.TARGET,
                Map.of(), Map.of());
        String run = Connectors.trigger(pipeline, Map.of());
        Connectors.awaitLog(run, "WAITING FOR RELEASE", RUN);
        String stateId = Connectors.stateId(pipeline);
        await().atMost(RUN).until(() -> json().get("/api/v1/states/" + stateId + "/bookmarks/pages").statusCode() == 200);

        browser.signIn(Tokens.admin());
        // A bookmark edit while the run is active is refused, as the API does, and the page says why.
        browser.go("/ui/states/" + stateId);
        editBookmark("pages", "{\"replication_key\": \"title\", \"replication_key_value\": \"edited\"}");
        WebElement refused = browser.waitFor(By.cssSelector("#bookmark-error:not([hidden])"));
        assertTrue(refused.getText().contains("Run " + run), refused.getText());
        json().get("/api/v1/states/" + stateId + "/bookmarks/pages/replication_key_value").then()
                .body(org.hamcrest.Matchers.equalTo(Connectors.toJson(HOSTILE) + "\n"));

        browser.go("/ui/runs/" + run);
        browser.waitFor(By.cssSelector("#run-status [data-status='RUNNING']"));
        browser.until(d -> "following".equals(d.findElement(By.id("log-status")).getAttribute("data-state"))
                && browser.text("log").contains("WAITING FOR RELEASE"));
        browser.waitFor(By.cssSelector("#run-actions button[data-action='cancel']"));
        browser.screenshot("run-live");
        browser.js("window.__samePage = true");

        // The log page follows the run live: the next line and the end arrive without a reload.
        Files.createFile(release);
        browser.until(d -> browser.text("log").contains("RELEASED"), RUN);
        browser.waitFor(By.cssSelector("#run-status [data-status='SUCCEEDED']"), RUN);
        browser.until(d -> "ended".equals(d.findElement(By.id("log-status")).getAttribute("data-state")));
        assertEquals(Boolean.TRUE, browser.js("return window.__samePage === true"), "the page was not reloaded");

        // Hostile text in a log line is shown as text.
        String log = browser.text("log");
        assertTrue(log.contains("starting; payload: " + HOSTILE), log);
        assertNoMarkupFrom(By.id("log"));

        // ... and so is a bookmark value.
        browser.go("/ui/states/" + stateId);
        WebElement value = browser.waitFor(By.cssSelector("#bookmarks tr[data-stream='pages'] .bookmark-value"));
        assertTrue(value.getText().contains(HOSTILE), value.getText());
        assertTrue(browser.text("current").contains(HOSTILE.replace("\"", "\\\"")), browser.text("current"));
        assertNoMarkupFrom(By.id("bookmarks"));
        assertNoMarkupFrom(By.id("current"));
        browser.screenshot("state-hostile");
        browser.assertCleanConsole();
    }

    @Test
    void aViewerSeesNoWriteButtons() throws Exception {
        String pipeline = Connectors.pipeline(Map.of("records", 3, "state_every", 1), Map.of(), Map.of());
        String run = Connectors.trigger(pipeline, Map.of());
        Connectors.awaitEnd(run, RUN).then().body("status", org.hamcrest.Matchers.equalTo("SUCCEEDED"));
        String stateId = Connectors.stateId(pipeline);

        browser.signIn(Tokens.of("test-viewer", "viewer"));
        assertEquals("viewer", browser.driver.findElement(By.id("who-role")).getAttribute("textContent"));
        assertFalse(browser.driver.findElement(By.cssSelector("[data-nav='audit']")).isDisplayed(), "audit link hidden");
        browser.waitFor(By.cssSelector("tr[data-pipeline='" + pipeline + "']"));
        // the records column and sparkline come from GET /api/v1/pipelines:summary (one request per page)
        browser.until(d -> "3".equals(browser.textOf("tr[data-pipeline='" + pipeline + "'] td.records")));
        assertNoButtons();
        browser.screenshot("viewer-pipelines");

        browser.go("/ui/pipelines/" + pipeline);
        browser.waitFor(By.cssSelector("#runs tr[data-run]"));
        assertNoButtons();

        browser.go("/ui/runs/" + run);
        browser.waitFor(By.cssSelector("#run-status [data-status='SUCCEEDED']"));
        browser.until(d -> "ended".equals(d.findElement(By.id("log-status")).getAttribute("data-state")));
        // who triggered it comes from the run itself, so a viewer sees it too (the audit trail is admin-only)
        assertTrue(browser.text("triggered-by").contains("by " + Tokens.ADMIN_SUBJECT), browser.text("triggered-by"));
        assertNoButtons();

        browser.go("/ui/states/" + stateId);
        browser.waitFor(By.cssSelector("#history tr[data-version]"));
        browser.waitFor(By.cssSelector("#bookmarks tr[data-stream='items']"));
        assertNoButtons();
        browser.screenshot("viewer-state");
        browser.assertCleanConsole();
    }

    @Test
    void bookmarksAreShownAndEditedAsTheExactTextTheApiStores() throws Exception {
        // An LSN-like bookmark beyond 2^53 (a JavaScript number would round it to ...567000), and a
        // state holding NaN (the browser's JSON refuses it), both as Meltano stores them.
        String stateId = io.tapline.support.Api.unique("dev:exact");
        json().body("{\"singer_state\": {\"bookmarks\": {\"events\": {\"lsn\": 12345678901234567890},"
                        + " \"metrics\": {\"ratio\": NaN, \"at\": 1700000000123456789}}}}")
                .put("/api/v1/states/" + stateId).then().statusCode(200);

        browser.signIn(Tokens.of("test-operator", "operator"));
        browser.go("/ui/states/" + stateId);
        WebElement metrics = browser.waitFor(By.cssSelector("#bookmarks tr[data-stream='metrics'] .bookmark-value"));
        assertTrue(metrics.getText().contains("NaN"), metrics.getText());
        assertTrue(metrics.getText().contains("1700000000123456789"), metrics.getText());
        assertTrue(browser.textOf("#current").contains("12345678901234567890"), browser.textOf("#current"));

        // The editor opens on the exact text; saved with one key more, the stored text keeps every digit.
        browser.click(browser.waitFor(By.cssSelector("#bookmarks tr[data-stream='events'] button[data-action='edit-bookmark']")));
        WebElement text = browser.waitFor(By.cssSelector("#bookmark-editor:not([hidden]) #bookmark-json"));
        assertTrue(text.getAttribute("value").contains("12345678901234567890"), text.getAttribute("value"));
        text.clear();
        text.sendKeys("{\"lsn\": 12345678901234567890, \"slot\": 98765432109876543210}");
        browser.click(browser.driver.findElement(By.id("bookmark-save")));
        browser.until(d -> browser.textOf("#bookmarks tr[data-stream='events'] .bookmark-value").contains("slot"));

        String stored = json().get("/api/v1/states/" + stateId).then().statusCode(200)
                .extract().asString();
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"events\":{\"lsn\":12345678901234567890,"
                + "\"slot\":98765432109876543210},\"metrics\":{\"ratio\":NaN,\"at\":1700000000123456789}}}}\n", stored);
        assertTrue(browser.textOf("#bookmarks tr[data-stream='events'] .bookmark-value").contains("98765432109876543210"));
        browser.screenshot("state-exact-numbers");
        browser.assertCleanConsole();
    }

    private void editBookmark(String stream, String json) {
        browser.click(browser.waitFor(By.cssSelector("#bookmarks tr[data-stream='" + stream + "'] button[data-action='edit-bookmark']")));
        WebElement text = browser.waitFor(By.cssSelector("#bookmark-editor:not([hidden]) #bookmark-json"));
        text.clear();
        text.sendKeys(json);
        browser.click(browser.driver.findElement(By.id("bookmark-save")));
    }

    private void assertNoButtons() {
        List<WebElement> buttons = browser.driver.findElements(By.cssSelector("main [data-action]"));
        assertEquals(List.of(), buttons.stream().map(b -> b.getAttribute("data-action")).toList(), "write buttons shown");
    }

    private void assertNoMarkupFrom(By container) {
        WebElement c = browser.driver.findElement(container);
        assertEquals(0, c.findElements(By.tagName("img")).size(), "no <img> from data");
        assertEquals(0, c.findElements(By.tagName("script")).size(), "no <script> from data");
        assertNull(browser.js("return window.__xss === undefined ? null : window.__xss"), "no script from data ran");
    }

    private String runIdFromUrl() {
        browser.until(d -> d.getCurrentUrl().contains("/ui/runs/"));
        String url = browser.driver.getCurrentUrl();
        return url.substring(url.indexOf("/ui/runs/") + "/ui/runs/".length());
    }

    private static long lastVersionOfRun(String runId) {
        List<Map<String, Object>> items = json().get("/api/v1/states/" + DEMO_STATE + "/history?limit=200")
                .then().statusCode(200).extract().path("items");
        return items.stream().filter(h -> runId.equals(h.get("runId")))
                .mapToLong(h -> ((Number) h.get("version")).longValue()).max().orElseThrow();
    }
}

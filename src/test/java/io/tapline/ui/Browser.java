package io.tapline.ui;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A headless Debian {@code chromium} driven through {@code chromedriver} (both from apt; {@code .ci/run}
 * installs them when missing). Without them the browser tests are skipped, except under CI
 * ({@code CI=true}), where they fail. Screenshots go to {@code target/screenshots/}.
 */
final class Browser implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of("target/screenshots");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    final ChromeDriver driver;
    private final String base;
    private final List<String> console = new ArrayList<>();

    private Browser(ChromeDriver driver, String base) {
        this.driver = driver;
        this.base = base;
    }

    /** Starts a browser against the test service at {@code root} (e.g. {@code http://localhost:4711/}). */
    static Browser open(URL root) {
        boolean present = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("CI needs chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
        }
        Assumptions.assumeTrue(present, "chromium and chromium-driver are not installed");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toString());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1440,1000", "--force-device-scale-factor=1", "--lang=en-US", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--disable-sync");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeDriver d = new ChromeDriver(service, options);
        d.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        String b = root.toString();
        return new Browser(d, b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
    }

    /** Opens a path of the service, e.g. {@code /ui/pipelines}. */
    void go(String path) {
        driver.get(base + path);
    }

    /** Signs in through the sign-in page with a bearer token and waits for the pipelines page. */
    void signIn(String token) {
        go("/ui/signin?next=/ui/pipelines");
        WebElement field = waitFor(By.id("token"));
        ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
        field.sendKeys(token);
        driver.findElement(By.id("signin-submit")).click();
        until(d -> d.getCurrentUrl().endsWith("/ui/pipelines"));
        waitFor(By.cssSelector("#who:not([hidden])"));
    }

    /** Waits (up to 30 s) until an element is there and returns it. */
    WebElement waitFor(By by) {
        return waitFor(by, Duration.ofSeconds(30));
    }

    /** Waits until an element is there and returns it. */
    WebElement waitFor(By by, Duration timeout) {
        return new WebDriverWait(driver, timeout).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> {
                    List<WebElement> found = d.findElements(by);
                    return found.isEmpty() ? null : found.get(0);
                });
    }

    /** Waits (up to 30 s) for a condition. */
    <T> T until(ExpectedCondition<T> condition) {
        return until(condition, Duration.ofSeconds(30));
    }

    /** Waits for a condition. */
    <T> T until(ExpectedCondition<T> condition, Duration timeout) {
        return new WebDriverWait(driver, timeout).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(condition);
    }

    /** Rendered text of the element with that id, read in one step (pages re-render while data arrives). */
    String text(String id) {
        return textOf("#" + id);
    }

    /** Rendered text of the first element matching a CSS selector, read in one step; null when there is none. */
    String textOf(String css) {
        return (String) js("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css);
    }

    /** Runs a script in the page and returns its value. */
    Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    /** Waits for an element and clicks it, again if the page re-rendered it in between. */
    void click(By by) {
        until(d -> {
            List<WebElement> found = d.findElements(by);
            if (found.isEmpty()) {
                return false;
            }
            click(found.get(0));
            return true;
        });
    }

    /** Clicks with a script (works even when the element is under the sticky header). */
    void click(WebElement e) {
        js("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click();", e);
    }

    /** Writes a screenshot of the whole page (beyond the window) to {@code target/screenshots/<name>.png}. */
    Path screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Map<String, Object> metrics = driver.executeCdpCommand("Page.getLayoutMetrics", Map.of());
        @SuppressWarnings("unchecked")
        Map<String, Object> size = (Map<String, Object>) metrics.get("cssContentSize");
        double width = ((Number) size.get("width")).doubleValue();
        double height = Math.min(((Number) size.get("height")).doubleValue(), 6000);
        Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
                "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        Path to = SCREENSHOTS.resolve(name + ".png");
        Files.write(to, java.util.Base64.getDecoder().decode((String) shot.get("data")));
        return to;
    }

    /**
     * Asserts the browser console shows no Content-Security-Policy violation and no uncaught error
     * since the last call (all entries are kept for {@link #consoleLog()}).
     */
    void assertCleanConsole() {
        List<String> bad = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            console.add(e.getLevel() + " " + e.getMessage());
            String m = e.getMessage();
            if (m.contains("Content Security Policy") || m.contains("Uncaught")) {
                bad.add(m);
            }
        }
        assertEquals(List.of(), bad, "browser console errors");
    }

    /** Every console entry read so far. */
    List<String> consoleLog() {
        return console;
    }

    @Override
    public void close() {
        driver.quit();
    }
}

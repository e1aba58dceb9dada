package io.tapline.events.delivery;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.SecretCipher;
import io.tapline.events.webhook.HostPolicy;
import io.tapline.events.webhook.Signatures;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * Makes one HTTP attempt of a claimed delivery with the JDK client: a JSON POST, connect and
 * response timeouts of {@code tapline.events.timeout}, redirects never followed (a 3xx is a
 * failed attempt). Webhook URLs pass {@link HostPolicy} again first (DNS may have changed since
 * the webhook was created) and are signed ({@link Signatures}); OpenLineage events go to
 * {@code tapline.openlineage.url} + endpoint, with the API key as a bearer token when set.
 */
@ApplicationScoped
public class DeliverySender {

    /** Sent as {@code User-Agent}. */
    public static final String USER_AGENT = "Tapline-Events/1";

    private final TaplineConfig config;
    private final SecretCipher cipher;
    private final Clock clock;
    private final HostPolicy hosts;
    private final HttpClient http;

    public DeliverySender(TaplineConfig config, SecretCipher cipher, Clock clock) {
        this.config = config;
        this.cipher = cipher;
        this.clock = clock;
        this.hosts = new HostPolicy(config.webhooks().allowedHosts());
        this.http = HttpClient.newBuilder().connectTimeout(config.events().timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * The result of one attempt.
     *
     * @param statusCode the HTTP status, null when no response came
     * @param error null when delivered (2xx), else a readable reason (at most 1000 characters)
     * @param durationMs time spent, in milliseconds
     */
    public record Result(Integer statusCode, String error, long durationMs) {
        /** True for a 2xx answer. */
        public boolean delivered() {
            return error == null;
        }
    }

    /** Attempts the delivery once; never throws. */
    public Result send(Claimed d) {
        long start = System.nanoTime();
        try {
            HttpRequest.Builder req = d.sink() == Sink.WEBHOOK ? webhook(d) : lineage();
            HttpResponse<Void> res = http.send(req.timeout(config.events().timeout())
                    .header("Content-Type", "application/json").header("User-Agent", USER_AGENT)
                    .POST(HttpRequest.BodyPublishers.ofString(d.body())).build(), HttpResponse.BodyHandlers.discarding());
            int code = res.statusCode();
            String error = code >= 200 && code < 300 ? null
                    : code >= 300 && code < 400 ? "answered " + code + " (redirects are not followed)"
                    : "answered " + code;
            return new Result(code, error, millis(start));
        } catch (HostPolicy.HostRefusedException e) {
            return new Result(null, "refused: " + e.getMessage(), millis(start));
        } catch (HttpTimeoutException e) {
            return new Result(null, "timed out after " + config.events().timeout().toMillis() + " ms", millis(start));
        } catch (IOException e) {
            return new Result(null, clip("connection failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage())), millis(start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(null, "interrupted (service stopping)", millis(start));
        } catch (RuntimeException e) {
            return new Result(null, clip("not sent: " + e.getMessage()), millis(start));
        }
    }

    private HttpRequest.Builder webhook(Claimed d) throws HostPolicy.HostRefusedException {
        URI url = URI.create(d.url());
        hosts.check(url);
        String secret = SecretCipher.isSealed(d.secret()) ? cipher.open(d.secret()) : d.secret();
        long t = clock.instant().getEpochSecond();
        return HttpRequest.newBuilder(url)
                .header(Signatures.HEADER, Signatures.header(secret, t, d.body()))
                .header("Tapline-Event", d.eventType())
                .header("Tapline-Delivery", d.id().toString());
    }

    private HttpRequest.Builder lineage() {
        URI base = config.openlineage().url().orElseThrow(() ->
                new IllegalStateException("tapline.openlineage.url is no longer set"));
        String b = base.toString();
        String endpoint = config.openlineage().endpoint();
        URI url = URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b)
                + (endpoint.startsWith("/") ? endpoint : "/" + endpoint));
        HttpRequest.Builder r = HttpRequest.newBuilder(url);
        config.openlineage().apiKey().ifPresent(k -> r.header("Authorization", "Bearer " + k));
        return r;
    }

    private static long millis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static String clip(String s) {
        return s.length() > 1000 ? s.substring(0, 1000) : s;
    }
}

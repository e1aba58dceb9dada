package io.tapline.events;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Starts the {@link Receiver} before the service and points the service at it: webhooks may call
 * 127.0.0.1 (tapline.webhooks.allowed-hosts), OpenLineage events go to {@code <receiver>/ol}, and
 * retries are fast (backoff of 200 ms doubling to 1 s, a poll every second: the scheduler's finest interval).
 */
public class ReceiverResource implements QuarkusTestResourceLifecycleManager {

    /** The receiver of the running test application. */
    public static volatile Receiver receiver;

    /** Path the OpenLineage events arrive at. */
    public static final String LINEAGE_PATH = "/ol/api/v1/lineage";

    @Override
    public Map<String, String> start() {
        try {
            receiver = new Receiver();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of(
                "tapline.webhooks.allowed-hosts", "127.0.0.1",
                "tapline.openlineage.url", receiver.base() + "/ol",
                "tapline.openlineage.namespace", "tapline-test",
                "tapline.events.poll-interval", "1s",
                "tapline.events.backoff-initial", "200ms",
                "tapline.events.backoff-max", "1s",
                "tapline.events.timeout", "5s");
    }

    @Override
    public void stop() {
        if (receiver != null) {
            receiver.stop();
        }
    }
}

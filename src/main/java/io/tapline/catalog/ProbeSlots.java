package io.tapline.catalog;

import io.quarkus.arc.Arc;
import io.quarkus.arc.ManagedContext;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.tapline.common.api.ConcurrencyCap;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.LimitExceededException;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Where connector probes run (issue 31): {@code :test}, {@code :discover} and {@code /about} start
 * a connector and wait for it, up to minutes, so they run on threads of their own
 * ({@code probe-N}, at most {@code tapline.catalog.max-probes}), never on an HTTP worker or event
 * loop thread, and readiness and the rest of the API stay free whatever the number of probes. One
 * caller may have {@code tapline.catalog.probes-per-caller} probes running at once on this replica
 * and the replica {@code tapline.catalog.max-probes}; beyond, the call is refused at once with 429
 * problem+json, before any work (nothing queues).
 */
@ApplicationScoped
public class ProbeSlots {

    private final ConcurrencyCap cap;
    private final ThreadPoolExecutor threads;
    private final CurrentVertxRequest request;

    public ProbeSlots(TaplineConfig config, CurrentVertxRequest request) {
        this.request = request;
        int max = Math.max(1, config.catalog().maxProbes());
        this.cap = new ConcurrencyCap("connector probes", config.catalog().probesPerCaller(), max,
                "tapline.catalog.probes-per-caller", "tapline.catalog.max-probes");
        AtomicInteger n = new AtomicInteger();
        // as many threads as places, so a probe that was admitted never waits in the queue
        this.threads = new ThreadPoolExecutor(max, max, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "probe-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.threads.allowCoreThreadTimeOut(true);
    }

    /**
     * Runs {@code probe} on a probe thread for {@code caller}, inside a request context that sees
     * the calling HTTP request (its request id goes into the audit trail).
     *
     * @param caller who asks ({@link io.tapline.common.security.CurrentActor#key()})
     * @return the probe's result, or its exception
     * @throws LimitExceededException (429) at once when the caller or the replica has the most probes running
     */
    public <T> CompletionStage<T> run(String caller, Supplier<T> probe) {
        ConcurrencyCap.Permit permit = cap.enter(caller);
        RoutingContext rc = request.getCurrent();
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            threads.execute(() -> {
                T value = null;
                Throwable failure = null;
                ManagedContext context = Arc.container().requestContext();
                context.activate();
                try {
                    if (rc != null) {
                        Arc.container().instance(CurrentVertxRequest.class).get().setCurrent(rc);
                    }
                    value = probe.get();
                } catch (Throwable e) {
                    failure = e;
                } finally {
                    context.terminate();
                    permit.close(); // before the answer goes out: the caller's next probe is admitted
                }
                if (failure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(failure);
                }
            });
        } catch (RuntimeException e) {
            permit.close();
            throw e;
        }
        return result;
    }

    /** Probes running now on this replica. */
    public int running() {
        return cap.inUse();
    }

    @PreDestroy
    void stop() {
        threads.shutdown();
    }
}

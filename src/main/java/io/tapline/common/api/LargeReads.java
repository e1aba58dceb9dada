package io.tapline.common.api;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.LimitExceededException;
import io.tapline.common.security.CurrentActor;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The cap on large reads (issue 31): answers whose size is not bounded by a page limit (a state
 * or a history page larger than {@code tapline.api.large-read-bytes}, the state export, an
 * extractor's streams). One caller may have {@code tapline.api.large-reads-per-caller} of them
 * answered at once and the replica {@code tapline.api.max-large-reads}; beyond, 429 problem+json.
 * A place is held until the HTTP response has been sent (or its connection closed), so a slow
 * client counts as long as it reads.
 */
@ApplicationScoped
public class LargeReads {

    private final ConcurrencyCap cap;
    private final long threshold;
    private final CurrentActor actor;
    private final CurrentVertxRequest request;

    public LargeReads(TaplineConfig config, CurrentActor actor, CurrentVertxRequest request) {
        this.cap = new ConcurrencyCap("large reads", config.api().largeReadsPerCaller(), config.api().maxLargeReads(),
                "tapline.api.large-reads-per-caller", "tapline.api.max-large-reads");
        this.threshold = config.api().largeReadBytes();
        this.actor = actor;
        this.request = request;
    }

    /** {@code tapline.api.large-read-bytes}: from this size in bytes a stored value is a large read. */
    public long threshold() {
        return threshold;
    }

    /**
     * Takes a place for the calling HTTP request until its response ends.
     *
     * @throws LimitExceededException (429) when the caller or the replica already has the most large reads
     */
    public void admit() {
        ConcurrencyCap.Permit permit = cap.enter(actor.key());
        RoutingContext rc = request.getCurrent();
        if (rc == null) {
            permit.close(); // not an HTTP request: nothing to hold the place for
            return;
        }
        rc.addEndHandler(done -> permit.close());
    }

    /** Large reads being answered now on this replica. */
    public int inUse() {
        return cap.inUse();
    }
}

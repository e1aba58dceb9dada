package io.tapline.common.config;

import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * Catalog discovery ({@code --discover}), its cache, and {@code :test} / {@code /about} of plugins.
 *
 * <p>Mapped under {@code tapline.catalog} as {@link TaplineConfig.Catalog}.
 */
public interface CatalogSettings {
    /** Longest a {@code --discover} may take, in a run or under {@code :discover}; the tap is stopped beyond. */
    @WithDefault("10m")
    Duration discoveryTimeout();

    /** Longest a connection test ({@code :test}) or {@code --about} may take; the connector is stopped beyond. */
    @WithDefault("60s")
    Duration testTimeout();

    /**
     * Longest a plugin's {@code --about --format=json} may take when the plugin is asked for its
     * capabilities (a plugin without listed capabilities, before its first run, discovery or
     * test); beyond, it is stopped and counts as not answering.
     */
    @WithDefault("20s")
    Duration aboutTimeout();

    /**
     * Most connector probes ({@code :test}, {@code :discover}, {@code /about}) one caller has
     * running at once on this replica; 429 beyond.
     */
    @WithDefault("2")
    int probesPerCaller();

    /**
     * Most connector probes running at once on this replica, each on a thread of its own (never an
     * HTTP worker or event loop thread); 429 beyond.
     */
    @WithDefault("4")
    int maxProbes();

    /**
     * Bytes of rendered streams views ({@code GET .../streams}) kept, one per catalog version and
     * select/metadata; the least recently used go first. A view larger than this is rendered per request.
     */
    @WithDefault("33554432")
    long streamsCacheBytes();
}

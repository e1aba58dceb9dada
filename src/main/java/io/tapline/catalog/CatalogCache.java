package io.tapline.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.PluginEnvironment;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The catalog cache: "look up, else discover and store", once per extractor cluster-wide. Runs
 * ({@code run/exec/CatalogProvider}) and {@code POST /api/v1/plugins/extractors/{name}:discover}
 * both come here: a catalog stored under the same {@link CatalogKey} is used as it is (source
 * {@code cache}); otherwise the caller takes the extractor's {@link DiscoveryLock}, looks again
 * (another run may just have stored it: it is then used, source {@code cache}), and only then runs
 * {@code --discover} and stores what it printed (source {@code discovered}). A forced refresh
 * ({@code refreshCatalog: true}, {@code :discover}) skips the first look-up and accepts only a
 * catalog stored after it asked.
 */
@ApplicationScoped
public class CatalogCache {

    /** Where a run's catalog came from; {@link #id()} is the value stored and shown. */
    public enum Source {
        /** The plugin's stored catalog ({@code catalog} field): wins over discovery. */
        USER,
        /** The cached discovered catalog. */
        CACHE,
        /** Discovered by this caller just now (and stored). */
        DISCOVERED;

        /** {@code user}, {@code cache} or {@code discovered}. */
        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Runs {@code --discover} and returns the catalog, or null when the caller was stopped meanwhile. */
    @FunctionalInterface
    public interface Discovery {
        /** The catalog the tap printed. */
        ObjectNode discover() throws IOException;
    }

    /**
     * An extractor as a cache entry is looked up: its plugin row and key.
     *
     * @param pluginId the plugin's id
     * @param name the plugin's name
     * @param key its {@link CatalogKey}
     */
    public record Target(long pluginId, String name, String key) {
    }

    /**
     * A catalog and where it came from.
     *
     * @param catalog the catalog as discovered (rules not applied)
     * @param source cache or discovered
     * @param discoveredAt when it was discovered
     */
    public record Found(ObjectNode catalog, Source source, OffsetDateTime discoveredAt) {
    }

    private final CatalogStore store;
    private final DiscoveryLock locks;
    private final TaplineConfig config;
    private final Clock clock;

    public CatalogCache(CatalogStore store, DiscoveryLock locks, TaplineConfig config, Clock clock) {
        this.store = store;
        this.locks = locks;
        this.config = config;
        this.clock = clock;
    }

    /**
     * The cache target of an extractor as it will be started.
     *
     * @param executable the executable as started (resolved into the plugin's environment when installed)
     * @param config the resolved, decrypted config
     * @param pluginEnv the plugin's own env, resolved
     * @param secrets resolved secret values
     * @throws IllegalStateException when the extractor does not exist (deleted meanwhile)
     */
    public Target target(String name, String executable, List<String> args, List<String> capabilities,
                         ObjectNode config, List<String> sensitive, Map<String, String> pluginEnv,
                         Collection<String> secrets) {
        Plugin p = store.plugin(PluginType.EXTRACTORS, name)
                .orElseThrow(() -> new IllegalStateException("extractor " + name + " no longer exists"));
        return target(p.id, p.name, p.pipUrl, executable, args, capabilities, config, sensitive, pluginEnv, secrets);
    }

    /**
     * The cache target of an extractor whose plugin row the caller already read (a run's plan:
     * {@code pluginId}, {@code name} and {@code pipUrl} as the run started), without a look-up; the
     * other parameters as {@link #target(String, String, List, List, ObjectNode, List, Map, Collection)}.
     *
     * @param pipUrl the plugin's {@code pip_url}, or null
     */
    public Target target(long pluginId, String name, String pipUrl, String executable, List<String> args,
                         List<String> capabilities, ObjectNode config, List<String> sensitive,
                         Map<String, String> pluginEnv, Collection<String> secrets) {
        String install = PluginEnvironment.of(this.config.plugins().dir(), PluginType.EXTRACTORS.id(), name).marker()
                .map(m -> m.fingerprint() + " " + m.version()).orElse(null);
        String key = CatalogKey.of(new CatalogKey.Input(executable, args, config, sensitive, pluginEnv, secrets,
                pipUrl, install, capabilities));
        return new Target(pluginId, name, key);
    }

    /** The cached catalog of the target's key, if any. */
    public Optional<Found> cached(Target t) {
        return store.lookup(t.pluginId(), t.key()).map(CatalogCache::found);
    }

    /**
     * The extractor's catalog: cached, or discovered once (cluster-wide) and stored.
     *
     * @param refresh discover even when a catalog is cached under the key
     * @param by who discovers, stored with the catalog ({@code run:<id>}, {@code api:<actor>})
     * @param stopped polled while waiting for another discovery of the extractor; true gives up
     * @param waiting called once when another discovery of the extractor holds the lock
     * @return the catalog, or empty when the caller was stopped (or the discovery returned null)
     * @throws IOException from the discovery
     * @throws IllegalStateException when the database cannot be reached for the lock
     */
    public Optional<Found> obtain(Target t, boolean refresh, String by, BooleanSupplier stopped, Runnable waiting,
                                  Discovery discovery) throws IOException {
        return obtain(t, refresh, by, null, stopped, waiting, discovery);
    }

    /**
     * A run's catalog, as {@link #obtain(Target, boolean, String, BooleanSupplier, Runnable, Discovery)}
     * with {@code by = "run:<id>"}, and records the run's catalog source ({@code pipeline_run.catalog_source}):
     * in the transaction of the look-up that found it in the cache, or of the store of what it
     * discovered (one transaction fewer per run than a look-up and then {@link #recordSource}).
     *
     * @return the catalog, or empty when the run was stopped (no source recorded then)
     */
    public Optional<Found> obtainForRun(Target t, boolean refresh, UUID runId, BooleanSupplier stopped,
                                        Runnable waiting, Discovery discovery) throws IOException {
        return obtain(t, refresh, "run:" + runId, runId, stopped, waiting, discovery);
    }

    /** @param runId the run whose catalog source is recorded with the look-up or store, or null */
    private Optional<Found> obtain(Target t, boolean refresh, String by, UUID runId, BooleanSupplier stopped,
                                   Runnable waiting, Discovery discovery) throws IOException {
        OffsetDateTime asked = OffsetDateTime.now(clock);
        if (!refresh) {
            Optional<Found> hit = (runId == null ? store.lookup(t.pluginId(), t.key())
                    : store.lookupForRun(t.pluginId(), t.key(), runId)).map(CatalogCache::found);
            if (hit.isPresent()) {
                return hit;
            }
        }
        DiscoveryLock.Held lock;
        try {
            lock = locks.acquire(t.pluginId(), stopped, waiting);
        } catch (SQLException e) {
            throw new IllegalStateException("the catalog discovery lock could not be taken: " + e.getMessage(), e);
        }
        if (lock == null) {
            return Optional.empty();
        }
        try (lock) {
            Optional<Found> other = cached(t).filter(f -> !refresh || !f.discoveredAt().isBefore(asked));
            if (other.isPresent()) {
                if (runId != null) {
                    recordSource(runId, Source.CACHE);
                }
                return other;
            }
            Instant started = clock.instant();
            ObjectNode catalog = discovery.discover();
            if (catalog == null) {
                return Optional.empty();
            }
            Instant ended = clock.instant();
            OffsetDateTime at = OffsetDateTime.ofInstant(ended, ZoneOffset.UTC);
            store.store(t.pluginId(), t.name(), t.key(), Jsons.write(catalog), streams(catalog), at, by,
                    Duration.between(started, ended).toMillis(), runId);
            return Optional.of(new Found(catalog, Source.DISCOVERED, at));
        }
    }

    /** {@code tapline.catalog.discovery-timeout}. */
    public Duration discoveryTimeout() {
        return config.catalog().discoveryTimeout();
    }

    /** Records which catalog a run used. */
    public void recordSource(UUID runId, Source source) {
        store.recordSource(runId, source.id());
    }

    private static Found found(ExtractorCatalog c) {
        return new Found(Jsons.readObject(c.catalog), Source.CACHE, c.discoveredAt);
    }

    /** Number of streams in a catalog. */
    static int streams(ObjectNode catalog) {
        JsonNode s = catalog.get("streams");
        return s != null && s.isArray() ? s.size() : 0;
    }
}

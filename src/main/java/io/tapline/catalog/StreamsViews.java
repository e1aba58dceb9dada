package io.tapline.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tapline.catalog.api.StreamsResponse;
import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.OffsetDateTime;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Rendered {@code GET .../streams} answers (issue 31), one per catalog version: the JSON bytes of a
 * {@link StreamsResponse}, written with the REST layer's mapper, kept by a {@link Key} that changes
 * whenever the answer may (the plugin row's version, the cached catalog's key and discovery time),
 * so a catalog is parsed and its rules applied once per version, not per request. At most
 * {@code tapline.catalog.streams-cache-bytes} are kept, least recently used first out; a newer
 * version of an extractor's view replaces its older ones. Callers asking for a view being rendered
 * wait for it instead of rendering it again.
 */
@ApplicationScoped
public class StreamsViews {

    /**
     * What a streams answer depends on.
     *
     * @param pluginId the extractor's id
     * @param name its name
     * @param pluginVersion its row's version (changes with select, metadata, catalog, config)
     * @param pluginUpdatedAt its row's last change
     * @param catalogKey the cached catalog's {@link CatalogKey}, or null for a user catalog
     * @param discoveredAt when the cached catalog was discovered, or null
     * @param current whether the cached catalog's key is the extractor's key now
     */
    public record Key(long pluginId, String name, long pluginVersion, OffsetDateTime pluginUpdatedAt,
                      String catalogKey, OffsetDateTime discoveredAt, boolean current) {
    }

    private final ObjectMapper mapper;
    private final long maxBytes;
    private final LinkedHashMap<Key, byte[]> views = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<Key, CompletableFuture<byte[]>> rendering = new ConcurrentHashMap<>();
    private long bytes;

    public StreamsViews(ObjectMapper mapper, TaplineConfig config) {
        this.mapper = mapper;
        this.maxBytes = config.catalog().streamsCacheBytes();
    }

    /**
     * The rendered view of {@code key}: kept, being rendered by another caller (waited for), or
     * rendered now from {@code render} and kept when it fits.
     *
     * @throws RuntimeException what {@code render} throws (also to callers that waited for it)
     */
    public byte[] get(Key key, Supplier<StreamsResponse> render) {
        byte[] kept = kept(key);
        if (kept != null) {
            return kept;
        }
        CompletableFuture<byte[]> mine = new CompletableFuture<>();
        CompletableFuture<byte[]> other = rendering.putIfAbsent(key, mine);
        if (other != null) {
            try {
                return other.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        try {
            kept = kept(key); // rendered and kept between the first look and the reservation
            byte[] out = kept != null ? kept : put(key, write(render.get()));
            mine.complete(out);
            return out;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            rendering.remove(key, mine);
        }
    }

    /** Renders and keeps {@code response} under {@code key} (after a discovery), replacing older versions. */
    public byte[] put(Key key, StreamsResponse response) {
        return put(key, write(response));
    }

    /** Bytes kept now. */
    public synchronized long bytes() {
        return bytes;
    }

    private synchronized byte[] kept(Key key) {
        return views.get(key);
    }

    private synchronized byte[] put(Key key, byte[] view) {
        for (Iterator<Map.Entry<Key, byte[]>> it = views.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Key, byte[]> e = it.next();
            if (e.getKey().pluginId() == key.pluginId() && !e.getKey().equals(key)) {
                bytes -= e.getValue().length;
                it.remove();
            }
        }
        if (view.length > maxBytes) {
            return view;
        }
        byte[] old = views.put(key, view);
        bytes += view.length - (old == null ? 0 : old.length);
        for (Iterator<byte[]> it = views.values().iterator(); bytes > maxBytes && it.hasNext(); ) {
            bytes -= it.next().length;
            it.remove();
        }
        return view;
    }

    private byte[] write(StreamsResponse response) {
        try {
            return mapper.writeValueAsBytes(response);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A streams view is not serialisable as JSON", e);
        }
    }
}

package io.tapline.catalog.api;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * {@code GET /api/v1/plugins/extractors/{name}/streams}: the extractor's streams as the tap will
 * get them, with the plugin's current {@code select} and {@code metadata} applied (the same code a
 * run applies before it passes {@code --catalog}/{@code --properties}).
 *
 * @param extractor the extractor's name
 * @param catalogSource {@code user} (the plugin's stored catalog) or {@code cache} (the discovered catalog)
 * @param discoveredAt when the cached catalog was discovered; null for a user catalog
 * @param current false when the cached catalog was discovered under another key (config,
 *     executable, pip_url, ... changed since): the next run discovers again
 * @param streams the streams, in catalog order
 */
@RegisterForReflection
public record StreamsResponse(String extractor, String catalogSource, OffsetDateTime discoveredAt, boolean current,
                              List<Stream> streams) {

    /**
     * One stream.
     *
     * @param tapStreamId {@code tap_stream_id}
     * @param stream {@code stream} (the name a target sees)
     * @param selected whether the tap gets the stream selected
     * @param keyProperties key properties ({@code table-key-properties} metadata, else {@code key_properties})
     * @param replicationKeys valid replication keys ({@code valid-replication-keys}, else {@code replication_key})
     * @param replicationMethod the replication method set by metadata or forced by the tap, or null
     * @param replicationMethods methods available: the forced one, else {@code FULL_TABLE} and, with a
     *     replication key, {@code INCREMENTAL}
     * @param properties top-level properties, in schema order
     */
    @RegisterForReflection
    public record Stream(String tapStreamId, String stream, boolean selected, List<String> keyProperties,
                         List<String> replicationKeys, String replicationMethod, List<String> replicationMethods,
                         List<Property> properties) {
    }

    /**
     * One top-level property.
     *
     * @param name the property
     * @param type its JSON schema {@code type} (a string or a list), or null
     * @param inclusion {@code automatic}, {@code available} or {@code unsupported}
     * @param selected whether the tap gets it selected
     */
    @RegisterForReflection
    public record Property(String name, Object type, String inclusion, boolean selected) {
    }
}

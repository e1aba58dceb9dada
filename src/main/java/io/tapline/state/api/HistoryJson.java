package io.tapline.state.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.Cursors;
import io.tapline.common.json.Jsons;
import io.tapline.state.StateService;
import io.tapline.state.json.CompactText;
import io.tapline.state.store.StateHistoryRepository;
import io.tapline.state.store.StateRepository;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A page of {@code GET /api/v1/states/{id}/history} written as it is read (issue 31): the entries
 * are loaded a few at a time (at most {@code largeBytes} of texts), a larger entry one side at a
 * time, and a side larger than {@code largeBytes} is copied token by token instead of through its
 * tree. The bytes are those
 * of the {@code Page<HistoryEntry>} the REST layer would write: entries are written by the same
 * mapper, a copied side's scalars are read and written as the tree holds them
 * ({@link Jsons#LENIENT}), and a side that a token copy cannot reproduce (a repeated key, text
 * that is not JSON) goes through its tree as before.
 */
final class HistoryJson {

    private HistoryJson() {
    }

    /** Where the entries of a page come from ({@link StateService#history}, {@code versionHead}, {@code versionSide}). */
    interface Source {
        /** Up to {@code n} entries with versions below {@code below}, newest first, with their texts. */
        List<StateRepository.Version> entries(long below, int n);

        /** An entry without its texts: each side {@code ""} when stored, null when not. */
        Optional<StateRepository.Version> head(long version);

        /** One side's text of an entry. */
        String side(long version, StateHistoryRepository.Side side);
    }

    /**
     * Writes the page {@code {"items": [...], "nextCursor": ...}}: entries of together at most
     * {@code largeBytes} are loaded at once; a larger entry is loaded one side at a time, each side
     * written before the next is read.
     *
     * @param sizes [version, bytes] of up to {@code limit + 1} entries, newest first
     * @param limit the page size
     * @param mapper the REST layer's mapper
     * @param largeBytes entries are loaded up to this many bytes at once; a larger side is copied
     * @param out where the page goes; flushed, not closed
     */
    static void write(List<long[]> sizes, int limit, Source source, ObjectMapper mapper, long largeBytes,
                      OutputStream out) throws IOException {
        List<long[]> page = sizes.size() > limit ? sizes.subList(0, limit) : sizes;
        // the REST layer's settings, but no flush after each value: a value may be a single number
        ObjectWriter writer = mapper.writer().without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
        try (JsonGenerator g = mapper.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
            g.writeStartObject();
            g.writeArrayFieldStart("items");
            int i = 0;
            while (i < page.size()) {
                int n = 1;
                long bytes = page.get(i)[1];
                if (bytes > largeBytes) {
                    Optional<StateRepository.Version> head = source.head(page.get(i)[0]);
                    if (head.isPresent()) {
                        large(head.get(), source, mapper, writer, largeBytes, g);
                    }
                } else {
                    while (i + n < page.size() && bytes + page.get(i + n)[1] <= largeBytes) {
                        bytes += page.get(i + n)[1];
                        n++;
                    }
                    for (StateRepository.Version v : source.entries(page.get(i)[0] + 1, n)) {
                        writer.writeValue(g, StateResource.history(v));
                    }
                }
                i += n;
            }
            g.writeEndArray();
            if (sizes.size() > limit) {
                g.writeStringField("nextCursor", Cursors.encode(Long.toString(page.get(page.size() - 1)[0])));
            }
            g.writeEndObject();
        }
    }

    /** A large entry, as {@link StateResource#history} maps it, its sides read and written one at a time. */
    private static void large(StateRepository.Version head, Source source, ObjectMapper mapper, ObjectWriter writer,
                              long largeBytes, JsonGenerator g) throws IOException {
        StateResource.HistoryEntry fields = new StateResource.HistoryEntry(head.version(), head.source(), head.action(),
                head.actor(), head.runId() == null ? null : head.runId().toString(), head.createdAt(), null, null);
        g.writeStartObject();
        for (Map.Entry<String, JsonNode> f : ((ObjectNode) mapper.valueToTree(fields)).properties()) {
            g.writeFieldName(f.getKey());
            writer.writeValue(g, f.getValue());
        }
        if (head.completedBefore() != null) {
            split(g, writer, "before", source, head.version(), StateHistoryRepository.Side.COMPLETED_BEFORE,
                    StateHistoryRepository.Side.PARTIAL_BEFORE, largeBytes);
        }
        if (head.completedAfter() != null) {
            split(g, writer, "after", source, head.version(), StateHistoryRepository.Side.COMPLETED_AFTER,
                    StateHistoryRepository.Side.PARTIAL_AFTER, largeBytes);
        }
        g.writeEndObject();
    }

    /** {@code "name": {"completed": ..., "partial": ...}}, each side read just before it is written. */
    private static void split(JsonGenerator g, ObjectWriter writer, String name, Source source, long version,
                              StateHistoryRepository.Side completed, StateHistoryRepository.Side partial, long largeBytes)
            throws IOException {
        g.writeObjectFieldStart(name);
        g.writeFieldName("completed");
        side(g, writer, source.side(version, completed), largeBytes);
        g.writeFieldName("partial");
        side(g, writer, source.side(version, partial), largeBytes);
        g.writeEndObject();
    }

    /** A side: its tree ({@link StateResource#lenient}) when small or not copyable, else copied token by token. */
    private static void side(JsonGenerator g, ObjectWriter writer, String text, long largeBytes) throws IOException {
        if (text == null) {
            g.writeNull(); // as the tree path's split() shows a missing side
            return;
        }
        if (text.length() <= largeBytes || !copyable(text)) {
            writer.writeValue(g, StateResource.lenient(text));
            return;
        }
        try (JsonParser p = Jsons.LENIENT.createParser(text)) {
            int depth = 0;
            JsonToken t = p.nextToken();
            do {
                switch (t) {
                    case START_OBJECT -> {
                        g.writeStartObject();
                        depth++;
                    }
                    case START_ARRAY -> {
                        g.writeStartArray();
                        depth++;
                    }
                    case END_OBJECT -> {
                        g.writeEndObject();
                        depth--;
                    }
                    case END_ARRAY -> {
                        g.writeEndArray();
                        depth--;
                    }
                    case FIELD_NAME -> g.writeFieldName(p.currentName());
                    default -> writer.writeValue(g, Jsons.LENIENT.readTree(p));
                }
                t = depth > 0 ? p.nextToken() : null;
            } while (t != null);
        }
    }

    /**
     * True when a token copy of {@code text} gives what its tree gives: it reads as one JSON value
     * ({@link Jsons#LENIENT}; what follows the value is ignored, as the tree reader ignores it), every
     * scalar reads, and no object repeats a key.
     */
    private static boolean copyable(String text) {
        try (JsonParser p = Jsons.LENIENT.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return false;
            }
            CompactText.KeyHashes[] keys = new CompactText.KeyHashes[1002];
            int depth = 0;
            do {
                switch (t) {
                    case START_OBJECT -> {
                        depth++;
                        if (depth >= keys.length) {
                            return false;
                        }
                        keys[depth] = keys[depth] == null ? new CompactText.KeyHashes() : keys[depth].reset();
                    }
                    case START_ARRAY -> {
                        depth++;
                        if (depth >= keys.length) {
                            return false;
                        }
                    }
                    case END_OBJECT, END_ARRAY -> depth--;
                    case FIELD_NAME -> {
                        if (!keys[depth].add(p.currentName())) {
                            return false;
                        }
                    }
                    default -> Jsons.LENIENT.readTree(p);
                }
                t = depth > 0 ? p.nextToken() : null;
            } while (t != null);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}

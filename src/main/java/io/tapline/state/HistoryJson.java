package io.tapline.state;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.Cursors;
import io.tapline.common.json.Jsons;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * A page of {@code GET /api/v1/states/{id}/history} written as it is read (issue 31): the entries
 * are loaded a few at a time (at most {@code largeBytes} of texts, or one entry), and a side larger
 * than {@code largeBytes} is copied token by token instead of through its tree. The bytes are those
 * of the {@code Page<HistoryEntry>} the REST layer would write: entries are written by the same
 * mapper, a copied side's scalars are read and written as the tree holds them
 * ({@link Jsons#LENIENT}), and a side that a token copy cannot reproduce (a repeated key, text
 * that is not JSON) goes through its tree as before.
 */
final class HistoryJson {

    private HistoryJson() {
    }

    /**
     * Writes the page {@code {"items": [...], "nextCursor": ...}}.
     *
     * @param sizes [version, bytes] of up to {@code limit + 1} entries, newest first
     * @param limit the page size
     * @param load (before version, count): the history entries below a version, newest first
     * @param mapper the REST layer's mapper
     * @param largeBytes entries are loaded up to this many bytes at once; a larger side is copied
     */
    static void write(List<long[]> sizes, int limit, BiFunction<Long, Integer, List<StateRepository.Version>> load,
                      ObjectMapper mapper, long largeBytes, OutputStream out) throws IOException {
        List<long[]> page = sizes.size() > limit ? sizes.subList(0, limit) : sizes;
        try (JsonGenerator g = mapper.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("items");
            int i = 0;
            while (i < page.size()) {
                int n = 1;
                long bytes = page.get(i)[1];
                while (i + n < page.size() && bytes + page.get(i + n)[1] <= largeBytes) {
                    bytes += page.get(i + n)[1];
                    n++;
                }
                for (StateRepository.Version v : load.apply(page.get(i)[0] + 1, n)) {
                    entry(v, mapper, largeBytes, g);
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

    /** One entry: as {@link StateResource#history} maps it, its large sides copied. */
    private static void entry(StateRepository.Version v, ObjectMapper mapper, long largeBytes, JsonGenerator g)
            throws IOException {
        List<String> sides = new ArrayList<>();
        sides.add(v.completedBefore());
        sides.add(v.partialBefore());
        sides.add(v.completedAfter());
        sides.add(v.partialAfter());
        if (sides.stream().allMatch(t -> t == null || t.length() <= largeBytes)) {
            mapper.writeValue(g, StateResource.history(v));
            return;
        }
        StateResource.HistoryEntry head = new StateResource.HistoryEntry(v.version(), v.source(), v.action(),
                v.actor(), v.runId() == null ? null : v.runId().toString(), v.createdAt(), null, null);
        ObjectNode fields = mapper.valueToTree(head);
        g.writeStartObject();
        for (Map.Entry<String, JsonNode> f : fields.properties()) {
            g.writeFieldName(f.getKey());
            mapper.writeTree(g, f.getValue());
        }
        split(g, mapper, "before", v.completedBefore(), v.partialBefore(), largeBytes);
        split(g, mapper, "after", v.completedAfter(), v.partialAfter(), largeBytes);
        g.writeEndObject();
    }

    /** {@code "name": {"completed": ..., "partial": ...}}, nothing when {@code completed} is null (as NON_NULL omits it). */
    private static void split(JsonGenerator g, ObjectMapper mapper, String name, String completed, String partial,
                              long largeBytes) throws IOException {
        if (completed == null) {
            return;
        }
        g.writeObjectFieldStart(name);
        g.writeFieldName("completed");
        side(g, mapper, completed, largeBytes);
        g.writeFieldName("partial");
        side(g, mapper, partial, largeBytes);
        g.writeEndObject();
    }

    /** A side: its tree ({@link StateResource#lenient}) when small or not copyable, else copied token by token. */
    private static void side(JsonGenerator g, ObjectMapper mapper, String text, long largeBytes) throws IOException {
        if (text == null || text.length() <= largeBytes || !copyable(text)) {
            mapper.writeTree(g, StateResource.lenient(text));
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
                    default -> mapper.writeTree(g, Jsons.LENIENT.readTree(p));
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

package io.tapline.cli.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.util.function.Function;

/** Reads a list endpoint page by page ({@code {"items": [...], "nextCursor": ...}}). */
public final class Pages {

    /** The largest page the service serves by default ({@code tapline.api.max-page-size}). */
    private static final int PAGE = 500;

    private Pages() {
    }

    /**
     * Up to {@code limit} items, following {@code nextCursor}.
     *
     * @param page makes the call for a page: given the cursor (null for the first) and the page size
     * @param limit the most items wanted; 0 or less for all
     */
    public static ArrayNode collect(PageCall page, int limit) {
        ArrayNode items = JsonNodeFactory.instance.arrayNode();
        String cursor = null;
        do {
            int size = limit > 0 ? Math.min(PAGE, limit - items.size()) : PAGE;
            JsonNode body = page.call(cursor, size).ok().json();
            for (JsonNode item : body.path("items")) {
                if (limit > 0 && items.size() >= limit) {
                    break;
                }
                items.add(item);
            }
            cursor = body.path("nextCursor").isTextual() ? body.get("nextCursor").asText() : null;
        } while (cursor != null && (limit <= 0 || items.size() < limit));
        return items;
    }

    /** Makes the call for one page. */
    @FunctionalInterface
    public interface PageCall {
        /** The call for the page after {@code cursor} (null: the first), of {@code size} items. */
        Call call(String cursor, int size);
    }

    /** A page call of {@code path} with {@code limit} and {@code cursor} added to what {@code call} builds. */
    public static PageCall of(Function<String, Call> call) {
        return (cursor, size) -> call.apply(cursor).query("limit", size).query("cursor", cursor);
    }
}

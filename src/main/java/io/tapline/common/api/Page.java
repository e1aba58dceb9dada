package io.tapline.common.api;

import java.util.List;
import java.util.function.Function;

/**
 * One page of a list endpoint, newest first.
 *
 * @param items the page's items
 * @param nextCursor opaque cursor for the next page, or null on the last page
 * @param <T> item type
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record Page<T>(List<T> items, String nextCursor) {

    /**
     * Builds a page from the rows of a keyset query that asked for {@code limit + 1} rows: the extra
     * row only tells that a next page exists.
     *
     * @param rows up to {@code limit + 1} rows, in page order
     * @param limit the page size
     * @param cursorKey the sort key of a row, encoded into the next cursor
     * @param map converts a row into an item
     */
    public static <R, T> Page<T> of(List<R> rows, int limit, Function<R, String> cursorKey, Function<R, T> map) {
        boolean more = rows.size() > limit;
        List<R> page = more ? rows.subList(0, limit) : rows;
        String next = more ? Cursors.encode(cursorKey.apply(page.get(page.size() - 1))) : null;
        return new Page<>(page.stream().map(map).toList(), next);
    }
}

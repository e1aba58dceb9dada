package io.tapline.common.api;

import java.util.List;

/**
 * One page of a list endpoint, newest first.
 *
 * @param items the page's items
 * @param nextCursor opaque cursor for the next page, or null on the last page
 * @param <T> item type
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record Page<T>(List<T> items, String nextCursor) {
}

package io.tapline.events;

import java.nio.charset.StandardCharsets;

/** Sizes of stored state texts, as the state warnings compare them. Stateless. */
final class StateSizes {

    private StateSizes() {
    }

    /** UTF-8 bytes of a state text; 0 for null. */
    static long bytes(String state) {
        return state == null ? 0 : state.getBytes(StandardCharsets.UTF_8).length;
    }

    /** True for no state, blank text, {@code {}} or a wrapped empty {@code {"singer_state": {}}}. */
    static boolean isEmpty(String state) {
        if (state == null) {
            return true;
        }
        String s = state.replaceAll("\\s", "");
        return s.isEmpty() || s.equals("{}") || s.equals("{\"singer_state\":{}}");
    }
}

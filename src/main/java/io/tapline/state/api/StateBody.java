package io.tapline.state.api;

import io.tapline.state.json.CompactText;
import io.tapline.state.store.StateRepository;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * The body of {@code GET /api/v1/states/{id}} printed from the stored texts without their trees
 * ({@link CompactText}), where that gives the very bytes the tree path prints (issue 31):
 * <ul>
 *   <li>merged view, partial side {@code {}} (what runs and edits store): the merged state is the
 *       completed side ({@code merge({}, completed)} copies it), printed compact;</li>
 *   <li>merged view, completed side {@code {}}: {@code merge(partial, {})} is the partial side;</li>
 *   <li>split view: {@code {"completed":C,"partial":P}} with both sides printed compact.</li>
 * </ul>
 * Each ends with the newline {@code meltano state get} prints. Otherwise (both sides non-empty in
 * the merged view, or a side {@link CompactText} refuses) {@link #of} is empty and the caller
 * prints the tree as before.
 */
final class StateBody {

    /** The text of an empty side, as stored. */
    private static final String EMPTY = "{}";
    private static final String SPLIT_OPEN = "{\"completed\":";
    private static final String SPLIT_MIDDLE = ",\"partial\":";

    private final String first;
    private final String second;
    private final long length;

    private StateBody(String first, String second, long length) {
        this.first = first;
        this.second = second;
        this.length = length;
    }

    /**
     * The body of {@code row} in the merged or split view, if it can be printed from its texts.
     *
     * @param split the split view ({@code view=split}), else the merged view
     */
    static Optional<StateBody> of(StateRepository.Row row, boolean split) {
        if (split) {
            long c = CompactText.length(row.completed());
            long p = c < 0 ? -1 : CompactText.length(row.partial());
            return p < 0 ? Optional.empty() : Optional.of(new StateBody(row.completed(), row.partial(),
                    SPLIT_OPEN.length() + c + SPLIT_MIDDLE.length() + p + 2));
        }
        String side = EMPTY.equals(row.partial()) ? row.completed() : EMPTY.equals(row.completed()) ? row.partial() : null;
        long n = side == null ? -1 : CompactText.length(side);
        return n < 0 ? Optional.empty() : Optional.of(new StateBody(side, null, n + 1));
    }

    /** The number of bytes {@link #writeTo} writes. */
    long length() {
        return length;
    }

    /** Writes the body (ASCII) to {@code out}. */
    void writeTo(OutputStream out) throws IOException {
        if (second == null) {
            CompactText.write(first, out);
        } else {
            out.write(SPLIT_OPEN.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            CompactText.write(first, out);
            out.write(SPLIT_MIDDLE.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            CompactText.write(second, out);
            out.write('}');
        }
        out.write('\n');
    }

    /** The body as bytes (for small bodies, sent with their length). */
    byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) length);
        try {
            writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does no I/O
        }
        return out.toByteArray();
    }
}

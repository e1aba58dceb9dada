package io.tapline.run.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.state.json.InvalidJsonException;
import io.tapline.state.json.PythonJson;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.model.StateRules;

import java.util.Optional;

/**
 * Turns the lines a target prints on stdout into state changes (meltano-state.md §3). Each line
 * is decoded as UTF-8 with replacement and parsed as Python's {@code json.loads} would; a valid
 * line's value becomes {@code {"singer_state": value}}, written either as a <em>complete</em> state
 * (replaces completed, clears partial) or a <em>partial</em> one (deep-merged), as the run's state
 * strategy decides. Lines are coalesced: in complete mode the latest line wins; in partial mode
 * successive lines are deep-merged in order, so applying the accumulation once equals applying each
 * line in turn.
 *
 * <p>Better than Meltano: a line that is valid JSON but not an object, and an empty state
 * {@code {}} (which SDK targets print and which would wipe every bookmark), are counted, logged and
 * never stored. Thread-safe: the target's stdout reader offers lines while the persister drains.
 */
public final class StateCheckpointer {

    /**
     * A state change ready to be stored.
     *
     * @param wrapped {@code {"singer_state": ...}}
     * @param complete true for a complete write, false for a partial merge
     * @param lines how many target lines it covers
     */
    public record Change(ObjectNode wrapped, boolean complete, int lines) {
    }

    /** What the checkpointer did with one line. */
    public enum Outcome { ACCEPTED, INVALID, NOT_AN_OBJECT, EMPTY_IGNORED, CONFLICT }

    private final boolean complete;
    private ObjectNode pending;
    private int pendingLines;
    private int validLines;
    private int invalidLines;
    private int emptyLines;
    private ObjectNode lastAccepted;

    /** @param complete true when lines are complete writes (auto without full refresh, overwrite) */
    public StateCheckpointer(boolean complete) {
        this.complete = complete;
    }

    /**
     * Takes one target stdout line (without its newline).
     *
     * @return what happened to it; only {@link Outcome#ACCEPTED} lines will be stored
     */
    public synchronized Outcome offer(byte[] line, int length) {
        byte[] bytes = line.length == length ? line : java.util.Arrays.copyOf(line, length);
        JsonNode value;
        try {
            value = PythonJson.parseLenientUtf8(bytes);
        } catch (InvalidJsonException e) {
            invalidLines++;
            return Outcome.INVALID;
        }
        if (!value.isObject()) {
            invalidLines++;
            return Outcome.NOT_AN_OBJECT;
        }
        if (value.isEmpty()) {
            emptyLines++;
            return Outcome.EMPTY_IGNORED;
        }
        ObjectNode wrapped = JsonNodeFactory.instance.objectNode();
        wrapped.set(StateRules.SINGER_STATE, value);
        if (complete || pending == null) {
            pending = wrapped;
        } else {
            try {
                pending = StateRules.merge(wrapped, pending);
            } catch (StateConflictException e) {
                invalidLines++;
                return Outcome.CONFLICT;
            }
        }
        pendingLines++;
        validLines++;
        lastAccepted = wrapped;
        return Outcome.ACCEPTED;
    }

    /** The accumulated change since the last drain, if any, and resets it. */
    public synchronized Optional<Change> drain() {
        if (pending == null) {
            return Optional.empty();
        }
        Change c = new Change(pending, complete, pendingLines);
        pending = null;
        pendingLines = 0;
        return Optional.of(c);
    }

    /** Puts a drained change back (its store failed), merging newer lines over it. */
    public synchronized void restore(Change c) {
        if (pending == null) {
            pending = c.wrapped();
        } else if (!complete) {
            pending = StateRules.merge(pending, c.wrapped());
        }
        pendingLines += c.lines();
    }

    /** True when lines are waiting to be stored. */
    public synchronized boolean hasPending() {
        return pending != null;
    }

    /** Valid state lines so far. */
    public synchronized int validLines() {
        return validLines;
    }

    /** Lines that were not JSON objects. */
    public synchronized int invalidLines() {
        return invalidLines;
    }

    /** Empty states {@code {}} that were ignored to keep the bookmarks. */
    public synchronized int emptyLines() {
        return emptyLines;
    }

    /** The last accepted line, wrapped, or null. */
    public synchronized ObjectNode lastAccepted() {
        return lastAccepted;
    }

    /** True for complete writes. */
    public boolean complete() {
        return complete;
    }

    /** A short printable excerpt of a line for logs (first 200 characters, controls escaped). */
    public static String excerpt(byte[] line, int length) {
        String s = new String(line, 0, Math.min(length, 400), java.nio.charset.StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 200; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return length > 200 ? sb + "..." : sb.toString();
    }
}

package io.tapline.events;

import java.util.Map;

/**
 * A warning about a run's state, shown on the run ({@code stateWarnings}) and, when it starts a
 * streak or crosses a threshold, recorded as an event of the same type.
 *
 * @param type {@link EventType#STATE_NOT_ADVANCING}, {@link EventType#STATE_LARGE} or {@link EventType#STATE_NOT_PASSED}
 * @param message readable sentence naming the state ID and the numbers
 * @param details the numbers (event payload {@code data}): sizes in bytes, run counts
 * @param newEvent true when this run starts the condition (an event is recorded); false while it lasts
 */
public record StateWarning(EventType type, String message, Map<String, Object> details, boolean newEvent) {
}

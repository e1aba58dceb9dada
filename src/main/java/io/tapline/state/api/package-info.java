/**
 * {@code /api/v1/states}: the resources (states, bookmarks, history), the bodies they print
 * (in Meltano's text, {@link io.tapline.state.api.StateBody}, {@link io.tapline.state.api.HistoryJson})
 * and their request and response records. Calls the services of {@link io.tapline.state} only.
 */
package io.tapline.state.api;

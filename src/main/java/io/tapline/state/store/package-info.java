/**
 * The state tables ({@code singer_state}, {@code singer_state_version}, {@code state_mirror_file})
 * and {@link io.tapline.state.store.StateWriter}, the one guarded write path of every change.
 * Uses {@link io.tapline.state.model} and {@link io.tapline.state.json}, never the mirror, the
 * services or the API.
 */
package io.tapline.state.store;

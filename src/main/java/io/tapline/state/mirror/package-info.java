/**
 * The Meltano local-filesystem backend directory shared with Meltano
 * ({@code tapline.state.mirror-dir}): the directory's files and lock files
 * ({@link io.tapline.state.mirror.MeltanoBackendDirectory}), and the mirror that imports what
 * Meltano wrote and writes what Tapline stored ({@link io.tapline.state.mirror.StateMirror}, its
 * periodic scan). Writes go through {@link io.tapline.state.store.StateWriter}.
 */
package io.tapline.state.mirror;

/**
 * The completed/partial state record ({@link io.tapline.state.model.MeltanoState}) and Meltano's
 * merge and validation rules ({@link io.tapline.state.model.StateRules}), as
 * shared/spec/meltano-state.md describes them. Plain Java, no database; uses only
 * {@link io.tapline.state.json}.
 */
package io.tapline.state.model;

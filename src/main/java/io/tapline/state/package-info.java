/**
 * Meltano-compatible state values, independent of storage: Python-exact JSON reading and writing
 * ({@link io.tapline.state.PythonJson}), the completed/partial record
 * ({@link io.tapline.state.MeltanoState}) and Meltano's merge and validation rules
 * ({@link io.tapline.state.StateRules}). Plain Java on Jackson trees, no framework, no database.
 * The reference is {@code shared/spec/meltano-state.md} (Meltano 4.2.2).
 */
package io.tapline.state;

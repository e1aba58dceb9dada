/**
 * Meltano-compatible state, in roles that depend one way (bottom first; {@code StateLayersTest}
 * keeps it so):
 * <ul>
 *   <li>{@link io.tapline.state.json}: Python-exact JSON reading and writing, no framework;</li>
 *   <li>{@link io.tapline.state.model}: the completed/partial record and Meltano's merge and
 *   validation rules (shared/spec/meltano-state.md, Meltano 4.2.2);</li>
 *   <li>{@link io.tapline.state.store}: the tables, and the one write path every change goes
 *   through ({@code StateWriter});</li>
 *   <li>{@link io.tapline.state.mirror}: the Meltano local-filesystem backend directory shared
 *   with Meltano;</li>
 *   <li>this package: the services the API and the run engine call ({@code StateService},
 *   {@code StateHistoryService}, {@code MirrorTransfer});</li>
 *   <li>{@link io.tapline.state.api}: {@code /api/v1/states} and its request and response records.</li>
 * </ul>
 */
package io.tapline.state;

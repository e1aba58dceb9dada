/**
 * Python-exact JSON for state values: {@code json.loads}/{@code json.dumps} as Meltano 4.2.2 uses
 * them ({@link io.tapline.state.json.PythonJson}), strict and replacing UTF-8 decoding
 * ({@link io.tapline.state.json.PythonUtf8}), and reads of stored texts without building whole trees
 * ({@link io.tapline.state.json.StoredJson}, {@link io.tapline.state.json.CompactText}). Plain Java
 * on Jackson trees; uses nothing else of {@code state}.
 */
package io.tapline.state.json;

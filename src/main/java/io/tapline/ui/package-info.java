/**
 * The web console at {@code /ui}: server-rendered Qute page shells ({@link io.tapline.ui.UiResource})
 * whose static scripts ({@code META-INF/resources/ui/js}) call the same {@code /api/v1} endpoints with
 * the same bearer token, kept in the browser's {@code sessionStorage}. The pages themselves carry no
 * data and need no token; every value is read from the API by the browser and shown as text. The
 * response headers of {@code /ui} (Content-Security-Policy without inline scripts, no framing) and
 * the redirect of {@code /} are set by {@link io.tapline.ui.UiHeaders}.
 */
package io.tapline.ui;

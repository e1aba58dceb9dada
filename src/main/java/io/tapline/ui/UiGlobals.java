package io.tapline.ui;

import io.quarkus.qute.TemplateGlobal;
import io.quarkus.runtime.LaunchMode;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Values every console page needs, read by the page shell ({@code templates/UiResource/layout.html})
 * into {@code data-} attributes of {@code <body>}.
 */
@TemplateGlobal
public final class UiGlobals {

    private UiGlobals() {
    }

    /** {@code "on"} when API calls need a bearer token, {@code "off"} with {@code tapline.security.enabled=false}. */
    static String auth() {
        boolean on = ConfigProvider.getConfig().getOptionalValue("tapline.security.enabled", Boolean.class).orElse(true);
        return on ? "on" : "off";
    }

    /** {@code "true"} in dev mode, where the console signs in with the dev token by itself ({@link UiResource#devToken()}). */
    static String dev() {
        return String.valueOf(LaunchMode.current() == LaunchMode.DEVELOPMENT);
    }
}

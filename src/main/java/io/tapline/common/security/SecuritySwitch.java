package io.tapline.common.security;

import io.quarkus.security.spi.runtime.AuthorizationController;
import io.tapline.common.config.TaplineConfig;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

/**
 * Switches role checks off when {@code tapline.security.enabled=false} (local use only; the
 * service logs a warning at start, see {@link SecurityStartup}). Replaces Quarkus's default
 * {@link AuthorizationController}, which the REST layer asks before every {@code @RolesAllowed}
 * check.
 */
@Alternative
@Priority(1)
@Singleton
public class SecuritySwitch extends AuthorizationController {

    private final boolean enabled;

    public SecuritySwitch(TaplineConfig config) {
        this.enabled = config.security().enabled();
    }

    /** False when authentication is switched off. */
    @Override
    public boolean isAuthorizationEnabled() {
        return enabled;
    }
}

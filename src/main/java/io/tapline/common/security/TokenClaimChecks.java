package io.tapline.common.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.jwt.JsonWebToken;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Checks of a verified token that the JWT library leaves open, applied before any role check:
 * <ul>
 *   <li>{@code iat} (issued at) later than now plus the clock skew ({@code mp.jwt.verify.clock.skew},
 *   default 60 s): refused (401), as a token from the future is forged or from a broken clock;</li>
 *   <li>{@code groups} must be an array of strings; a single string is one role name (the
 *   library splits it at spaces, so {@code "viewer admin"} granted admin); an object, a number or
 *   an array holding anything but strings is refused (401) instead of failing the request (500).</li>
 * </ul>
 * The {@code groups} check applies when roles come from the standard claim (no
 * {@code smallrye.jwt.path.groups}).
 */
@ApplicationScoped
public class TokenClaimChecks implements SecurityIdentityAugmentor {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Clock clock;

    public TokenClaimChecks(Clock clock) {
        this.clock = clock;
    }

    @Override
    public int priority() {
        return 100;
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        if (identity.isAnonymous() || !(identity.getPrincipal() instanceof JsonWebToken jwt)) {
            return Uni.createFrom().item(identity);
        }
        try {
            return Uni.createFrom().item(check(identity, jwt));
        } catch (AuthenticationFailedException e) {
            return Uni.createFrom().failure(e);
        }
    }

    private SecurityIdentity check(SecurityIdentity identity, JsonWebToken jwt) {
        long skew = ConfigProvider.getConfig().getOptionalValue("mp.jwt.verify.clock.skew", Long.class).orElse(60L);
        long iat = jwt.getIssuedAtTime();
        if (iat > clock.instant().getEpochSecond() + skew) {
            throw new AuthenticationFailedException("the token is issued in the future (iat " + iat + ")");
        }
        if (ConfigProvider.getConfig().getOptionalValue("smallrye.jwt.path.groups", String.class).isPresent()) {
            return identity;
        }
        JsonNode groups = payload(jwt.getRawToken()).get("groups");
        if (groups == null || groups.isNull()) {
            return identity;
        }
        Set<String> roles = new LinkedHashSet<>();
        if (groups.isTextual()) {
            roles.add(groups.asText());
        } else if (groups.isArray()) {
            for (JsonNode g : groups) {
                if (!g.isTextual()) {
                    throw new AuthenticationFailedException("the token's groups claim holds a value that is not a role name");
                }
                roles.add(g.asText());
            }
        } else {
            throw new AuthenticationFailedException("the token's groups claim is not an array of role names");
        }
        if (roles.equals(identity.getRoles())) {
            return identity;
        }
        QuarkusSecurityIdentity.Builder b = QuarkusSecurityIdentity.builder()
                .setPrincipal(identity.getPrincipal())
                .setAnonymous(false)
                .addCredentials(identity.getCredentials())
                .addAttributes(identity.getAttributes())
                .addRoles(roles);
        return b.build();
    }

    private static JsonNode payload(String raw) {
        try {
            String[] parts = raw.split("\\.");
            return JSON.readTree(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new AuthenticationFailedException("the token's claims cannot be read");
        }
    }
}

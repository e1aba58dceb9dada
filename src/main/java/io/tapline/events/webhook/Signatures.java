package io.tapline.events.webhook;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;

/**
 * Webhook signatures, as Stripe signs: header {@value #HEADER} with value
 * {@code t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>}. A receiver recomputes
 * the HMAC over the timestamp, a dot and the raw body, compares in constant time, and rejects
 * timestamps older than a few minutes (replays). Stateless.
 */
public final class Signatures {

    /** The signature header. */
    public static final String HEADER = "Tapline-Signature";

    private Signatures() {
    }

    /** The header value for a body sent at {@code unixSeconds}. */
    public static String header(String secret, long unixSeconds, String body) {
        return "t=" + unixSeconds + ",v1=" + hmac(secret, unixSeconds + "." + body);
    }

    /** Lowercase hex of HMAC-SHA256 of the UTF-8 message under the UTF-8 secret. */
    public static String hmac(String secret, String message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}

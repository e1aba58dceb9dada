package io.tapline.common.security;

import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Issue 13 item 3: every form a connector may print a secret in is masked (the old masking matched the raw value only). */
class SecretMaskerTest {

    private static final String PEM = "-----BEGIN KEY-----\nMIIBVgIBADANBgkqhkiG9w0BAQEFAASC\nAUAwggE8AgEAAkEAq7BFUpkGp3+XQ==\n-----END KEY-----";
    private static final String PW = "p\u00e4ss \"word\"\\with/slash";

    private final SecretMasker masker = new SecretMasker(List.of(PEM, PW));

    @Test
    void rawLinesJsonUrlAndBase64FormsAreMasked() {
        assertEquals("x ******** y", masker.mask("x " + PW + " y"));
        assertEquals("key: ********", masker.mask("key: MIIBVgIBADANBgkqhkiG9w0BAQEFAASC"));
        // Python json.dumps, ensure_ascii on and off, and Java/JS upper-case escapes
        assertEquals("{\"k\": \"********\"}", masker.mask("{\"k\": \"p\\u00e4ss \\\"word\\\"\\\\with/slash\"}"));
        assertEquals("{\"k\": \"********\"}", masker.mask("{\"k\": \"p\\u00E4ss \\\"word\\\"\\\\with/slash\"}"));
        assertEquals("{\"k\": \"********\"}", masker.mask("{\"k\": \"p\u00e4ss \\\"word\\\"\\\\with/slash\"}"));
        assertEquals("{\"k\": \"********\"}", masker.mask("{\"k\": \"p\\u00e4ss \\\"word\\\"\\\\with\\/slash\"}"));
        assertEquals("pem=********", masker.mask("pem=" + PEM.replace("\n", "\\n")));
        assertEquals("q=********", masker.mask("q=" + URLEncoder.encode(PW, StandardCharsets.UTF_8)));
        assertEquals("q=********", masker.mask("q=" + URLEncoder.encode(PW, StandardCharsets.UTF_8).replace("+", "%20")));
        assertEquals("b=********", masker.mask("b=" + Base64.getEncoder().encodeToString(PW.getBytes(StandardCharsets.UTF_8))));
        assertEquals("b=********", masker.mask("b=" + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(PEM.getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void quotedHexAndBasicAuthFormsAreMasked() {
        // regression: urllib.parse.quote (keeps '/', %20), hex, and base64("user:" + password) were printed in clear
        String secret = "Pa$w\"ord/\u00e9+ 1";
        SecretMasker m = new SecretMasker(List.of(secret));
        assertEquals("url: ********", m.mask("url: Pa%24w%22ord/%C3%A9%2B%201"));
        assertEquals("hex: ********", m.mask("hex: 50612477226f72642fc3a92b2031"));
        assertEquals("HEX: ********", m.mask("HEX: 50612477226F72642FC3A92B2031"));
        for (String user : List.of("", "a:", "ab:", "user:", "admin:")) {
            String b64 = Base64.getEncoder().encodeToString((user + secret).getBytes(StandardCharsets.UTF_8));
            String masked = m.mask("Authorization: Basic " + b64);
            assertFalse(masked.contains(b64.substring(8, b64.length() - 4)), user + " -> " + masked);
        }
    }

    @Test
    void shortLinesAndShortValuesStayReadable() {
        SecretMasker m = new SecretMasker(List.of("ab", "abcdefgh\nxy\nlong-enough"));
        assertEquals("ab xy ********", m.mask("ab xy long-enough"));
        assertFalse(m.mask("abcdefgh").contains("abcdefgh"));
        assertEquals(SecretMasker.none().mask("anything"), "anything");
    }
}

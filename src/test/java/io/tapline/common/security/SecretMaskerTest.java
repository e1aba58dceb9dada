package io.tapline.common.security;

import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void pythonReprsOfStrAndBytesAndUnicodeEscapeAreMasked() {
        // regression (issue 31 item 2): both quotes, a control character, a non-printable non-ASCII
        // one and astral characters were printed in clear by Python's repr, bytes repr and unicode_escape.
        // The printed texts below are what CPython 3.11 prints.
        Map<String, List<String>> printed = new LinkedHashMap<>();
        printed.put("p'CANARY\"7f3a9q", List.of(
                "'p\\'CANARY\"7f3a9q'",
                "b'p\\'CANARY\"7f3a9q'",
                "{'password': 'p\\'CANARY\"7f3a9q'}",
                "ValueError('{\\'pw\\': \\'p\\\\\\'CANARY\"7f3a9q\\'}')",
                "{\"m\": \"'p\\\\'CANARY\\\"7f3a9q'\"}"));
        printed.put("esc\u001bK7q2w!", List.of(
                "'esc\\x1bK7q2w!'",
                "b'esc\\x1bK7q2w!'",
                "b'esc\\\\x1bK7q2w!'",
                "esc\\x1bK7q2w!",
                "ValueError(\"{'pw': 'esc\\\\x1bK7q2w!'}\")",
                "{\"m\": \"'esc\\\\x1bK7q2w!'\"}"));
        printed.put("nb\u00a0sp9z", List.of(
                "'nb\\xa0sp9z'",
                "b'nb\\xc2\\xa0sp9z'",
                "b'nb\\\\xa0sp9z'",
                "nb\\xa0sp9z"));
        printed.put("mx\u2028\ud83d\ude00\u00e9Qz4", List.of(
                "'mx\\u2028\ud83d\ude00\u00e9Qz4'",
                "'mx\\u2028\\U0001f600\\xe9Qz4'",
                "b'mx\\xe2\\x80\\xa8\\xf0\\x9f\\x98\\x80\\xc3\\xa9Qz4'",
                "b'mx\\\\u2028\\\\U0001f600\\\\xe9Qz4'",
                "mx\\u2028\\U0001f600\\xe9Qz4",
                "{\"m\": \"'mx\\\\u2028\\ud83d\\ude00\\u00e9Qz4'\"}",
                "{\"m\": \"'mx\\\\u2028\ud83d\ude00\u00e9Qz4'\"}"));
        SecretMasker m = new SecretMasker(printed.keySet());
        for (Map.Entry<String, List<String>> e : printed.entrySet()) {
            String tail = e.getKey().substring(e.getKey().length() - 3);
            for (String text : e.getValue()) {
                String masked = m.mask("Traceback: " + text + " end");
                assertTrue(masked.contains(SecretMasker.MASK) && !masked.contains(tail), text + " -> " + masked);
            }
        }
    }

    @Test
    void aShortPasswordInsideHttpBasicIsMaskedAtEveryAlignment() {
        // regression (issue 31 item 2): base64("bob:Zq5x9") was printed in clear (7 characters or fewer)
        SecretMasker m = new SecretMasker(List.of("Zq5x9"));
        assertEquals("Authorization: Basic ********", m.mask("Authorization: Basic Ym9iOlpxNXg5"));
        assertEquals("{'Authorization': 'Basic ********'}", m.mask("{'Authorization': 'Basic Ym9iOlpxNXg5'}"));
        for (String user : List.of("", "a", "ab", "abc", "user", "admin", "x-y_z")) {
            for (String prefix : List.of("", "/p/", "tok")) {
                String b64 = Base64.getEncoder().encodeToString((user + ":Zq5x9").getBytes(StandardCharsets.UTF_8));
                String url = Base64.getUrlEncoder().withoutPadding()
                        .encodeToString((user + ":Zq5x9").getBytes(StandardCharsets.UTF_8));
                assertEquals("h ********", m.mask("h " + prefix + b64), user);
                assertEquals("h ******** t", m.mask("h " + prefix + url + " t"), user);
            }
        }
        assertEquals("b=********", new SecretMasker(List.of("abc")).mask("b=" + Base64.getEncoder()
                .encodeToString("u:abc".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void base64LikeWordsWithoutTheSecretStayAsTheyAre() {
        SecretMasker m = new SecretMasker(List.of("Zq5x9", "k3Y"));
        String prose = "INFO extractor connection established; information/configuration loaded"
                + " Basic " + Base64.getEncoder().encodeToString("bob:other9".getBytes(StandardCharsets.UTF_8));
        assertEquals(prose, m.mask(prose));
        java.util.Random random = new java.util.Random(31);
        StringBuilder tokens = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[9];
            random.nextBytes(b);
            tokens.append(Base64.getEncoder().encodeToString(b)).append(' ');
        }
        // decoded at four alignments each, none holds the 5 bytes of the password
        assertEquals(tokens.toString(), new SecretMasker(List.of("Zq5x9")).mask(tokens.toString()));
    }
}

package io.tapline.common.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.support.Cli;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tapline token} (the CLI signs with the key files itself, docs/cli.md) makes the token
 * that {@link TokenCommand} of the service jar makes: the same header and claims, signed with a
 * key pair in the same files and format, which the public key verifies.
 */
class TokenCommandParityTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theCliMakesTheServiceJarsTokenWithTheSameKeyFiles() throws Exception {
        Path dir = Files.createDirectories(Cli.HOME.resolve("parity-" + UUID.randomUUID()));
        Cli.Result r = Cli.at(new URL("http://127.0.0.1:1"), null)
                .run("token", "--keys-dir", dir.toString(), "--role", "operator", "--subject", "bob", "--days", "3");
        assertEquals(0, r.exitCode(), r.toString());
        String cliToken = r.out().trim();

        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pem(dir.resolve("private.pem"))));
        String jarToken = TokenCommand.sign(key, "bob", "operator", Instant.now(), Duration.ofDays(3));
        String[] cli = cliToken.split("\\.");
        String[] jar = jarToken.split("\\.");
        assertEquals(jar[0], cli[0], "the same header");
        ObjectNode cliClaims = claims(cli[1]);
        ObjectNode jarClaims = claims(jar[1]);
        assertEquals(3 * 86400L, cliClaims.get("exp").asLong() - cliClaims.get("iat").asLong());
        for (ObjectNode c : new ObjectNode[] {cliClaims, jarClaims}) {
            c.remove("iat");
            c.remove("exp");
            c.remove("jti");
        }
        assertEquals(jarClaims.toString(), cliClaims.toString(), "the same claims, in the same order");

        PublicKey pub = KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(pem(dir.resolve("public.pem"))));
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initVerify(pub);
        s.update((cli[0] + "." + cli[1]).getBytes(StandardCharsets.US_ASCII));
        assertTrue(s.verify(Base64.getUrlDecoder().decode(cli[2])), "signed with the pair's private key");
        assertEquals(DevKeys.ISSUER, cliClaims.get("iss").asText());
    }

    private static ObjectNode claims(String part) throws Exception {
        return (ObjectNode) JSON.readTree(Base64.getUrlDecoder().decode(part));
    }

    private static byte[] pem(Path file) throws Exception {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        return Base64.getDecoder().decode(text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    }
}

package io.tapline.invocation;

import io.tapline.common.security.SecretMasker;
import io.tapline.invocation.ConfigResolver.ConfigReferenceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 item 3: {@code ${file:...}} and {@code ${secret:...}} are checked at the file's real
 * location. {@code ${file:/dev/fd/../environ}} passed the old lexical check ({@code /dev/environ})
 * and read the service's own environment through {@code /proc/self}; so did a symlink into /proc.
 */
class ConfigResolverFilesTest {

    private static final String REFUSED = "files under /proc and /sys are not read, nor /dev/fd and /dev/std*";

    @TempDir
    Path dir;

    private ConfigResolver resolver() {
        return new ConfigResolver(n -> null, List.of(), List.of(), Map.of(), dir);
    }

    private String refusal(String ref) {
        return assertThrows(ConfigReferenceException.class, () -> resolver().resolveString(ref, "tap.config.x"),
                ref).getMessage();
    }

    @Test
    void theServicesEnvironmentCannotBeReadThroughDevFdOrALink() throws Exception {
        // regression: these read /proc/self/environ
        Files.createSymbolicLink(dir.resolve("env-link"), Path.of("/proc/self/environ"));
        Files.createSymbolicLink(dir.resolve("self-link"), Path.of("/proc/self"));
        for (String ref : List.of("${file:/dev/fd/../environ}", "${file:" + dir.resolve("env-link") + "}",
                "${file:" + dir.resolve("self-link") + "/environ}", "${secret:env-link}",
                "${file:/proc/self/environ}", "${file:/sys/kernel/mm/../../kernel/hostname}",
                "${file:/dev/fd/0}", "${file:/dev/stdin}", "${file:/dev/stderr}", "${file:/tmp/../proc/1/environ}")) {
            String message = refusal(ref);
            assertTrue(message.contains("tap.config.x refers to " + ref + "; " + REFUSED), message);
        }
    }

    @Test
    void devicesFifosAndLargeFilesAreNotRead() throws Exception {
        assertTrue(refusal("${file:/dev/zero}").endsWith("which is not a regular file"));
        assertTrue(refusal("${file:" + dir + "}").endsWith("which is not a regular file"));
        Path big = dir.resolve("big");
        Files.write(big, new byte[ConfigResolver.MAX_FILE_BYTES + 1]);
        assertTrue(refusal("${file:" + big + "}").endsWith("which is larger than 1048576 bytes"));
        assertTrue(refusal("${file:" + dir.resolve("missing") + "}").endsWith("which cannot be read"));
    }

    @Test
    void regularFilesAndKubernetesStyleLinkedSecretsAreRead() throws Exception {
        Path data = Files.createDirectory(dir.resolve("..2026_12_02"));
        Files.writeString(data.resolve("pg"), "s3cr3t-pg\n");
        Files.createSymbolicLink(dir.resolve("..data"), data.getFileName());
        Files.createSymbolicLink(dir.resolve("pg"), Path.of("..data/pg"));
        ConfigResolver r = resolver();
        assertEquals("s3cr3t-pg", r.resolveString("${secret:pg}", "x"));
        assertEquals("pw=s3cr3t-pg", r.resolveString("pw=${file:" + dir.resolve("pg") + "}", "x"));
        assertTrue(r.secrets().contains("s3cr3t-pg"));
    }

    @Test
    void theNulSeparatedPiecesOfAFileAndItsReprAreMasked() throws Exception {
        Path f = dir.resolve("entries");
        Files.writeString(f, "FIRST=piece-one\0SECOND=piece-two\0", StandardCharsets.UTF_8);
        ConfigResolver r = resolver();
        r.resolveString("${file:" + f + "}", "x");
        SecretMasker m = new SecretMasker(r.secrets());
        for (String printed : List.of("SECOND=piece-two", "'FIRST=piece-one\\x00SECOND=piece-two\\x00'",
                "b'FIRST=piece-one\\x00SECOND=piece-two\\x00'", "FIRST=piece-one\\u0000SECOND")) {
            String masked = m.mask("got " + printed);
            assertFalse(masked.contains("piece-one") || masked.contains("piece-two"), printed + " -> " + masked);
        }
    }
}

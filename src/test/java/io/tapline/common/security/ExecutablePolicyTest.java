package io.tapline.common.security;

import io.tapline.common.error.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExecutablePolicyTest {

    @TempDir
    Path tmp;

    @Test
    void withoutDirectoriesEverythingIsAllowed() {
        ExecutablePolicy open = new ExecutablePolicy(List.of());
        assertDoesNotThrow(() -> open.checkDeclared("/usr/bin/env"));
        assertTrue(open.violation("extractor", "/usr/bin/env", "/usr/bin", tmp).isEmpty());
    }

    @Test
    void absolutePathsMustLieInAnAllowedDirectory() {
        ExecutablePolicy p = new ExecutablePolicy(List.of(tmp.resolve("connectors")));
        assertDoesNotThrow(() -> p.checkDeclared(tmp.resolve("connectors/tap-csv/bin/tap-csv").toString()));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> p.checkDeclared("/usr/bin/env"));
        assertEquals("executable", e.errors().get(0).field());
        // Lexically outside after normalisation, and a sibling with the same prefix.
        assertThrows(InvalidInputException.class, () -> p.checkDeclared(tmp.resolve("connectors/../x").toString()));
        assertThrows(InvalidInputException.class, () -> p.checkDeclared(tmp.resolve("connectors-evil/tap").toString()));
        // Command names are checked when a run resolves them.
        assertDoesNotThrow(() -> p.checkDeclared("python3"));
    }

    @Test
    void commandNamesAreResolvedOnPathWhenARunStarts() throws Exception {
        Path allowed = Files.createDirectories(tmp.resolve("allowed"));
        Path other = Files.createDirectories(tmp.resolve("other"));
        for (Path dir : List.of(allowed, other)) {
            Path exe = Files.createFile(dir.resolve(dir.getFileName() + "-tap"));
            Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String path = allowed + ":" + other;
        ExecutablePolicy p = new ExecutablePolicy(List.of(allowed));
        assertTrue(p.violation("extractor", "allowed-tap", path, tmp).isEmpty());
        String reason = p.violation("loader", "other-tap", path, tmp).orElseThrow();
        assertTrue(reason.startsWith("the loader executable " + other.resolve("other-tap")), reason);
        assertTrue(reason.contains("tapline.security.executable-dirs"), reason);
        // A plugin's env can change PATH, relative entries included: the check follows it.
        assertTrue(p.violation("extractor", "other-tap", "other:allowed", tmp).isPresent());
        assertTrue(p.violation("extractor", "allowed-tap", "other:allowed", tmp).isEmpty());
        // Not found at all: starting it fails with the usual message.
        assertTrue(p.violation("extractor", "no-such-tap", path, tmp).isEmpty());
    }
}

package io.tapline.cli.config;

import io.tapline.cli.CliException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The profiles file: read back what was written, mode 0600 in a 0700 directory, bad files named. */
class ProfilesTest {

    @TempDir
    Path dir;

    @Test
    void savedProfilesReadBackWithTheCurrentOneAndPrivateModes() throws Exception {
        Path file = dir.resolve("tapline/config");
        Profiles p = Profiles.load(file);
        assertTrue(p.all().isEmpty());
        p.put("local", new Profiles.Profile("http://localhost:8080", null));
        p.put("prod", new Profiles.Profile("https://tapline.example.com", "a.b.c"));
        p.use("prod");
        p.save();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));

        Profiles q = Profiles.load(file);
        assertEquals("prod", q.current());
        assertEquals("a.b.c", q.get("prod").token());
        assertEquals("http://localhost:8080", q.get("local").url());
        assertFalse(q.exposed());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(Profiles.load(file).exposed(), "a token readable by others is warned about");

        q.remove("prod");
        q.save();
        assertEquals(null, Profiles.load(file).current());
    }

    @Test
    void aBadLineIsNamedWithItsNumber() throws Exception {
        Path file = dir.resolve("config");
        Files.writeString(file, "current = a\n\n[a]\nurl = http://x\npassword = y\n");
        CliException e = assertThrows(CliException.class, () -> Profiles.load(file));
        assertTrue(e.getMessage().contains("line 5") && e.getMessage().contains("'password'"), e.getMessage());
        assertEquals(2, e.exitCode());
    }
}

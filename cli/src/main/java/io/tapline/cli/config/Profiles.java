package io.tapline.cli.config;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The profiles file: named servers, each a URL and a token, and which one is current, as kubectl
 * keeps contexts. The file is {@code $TAPLINE_CONFIG}, else {@code $XDG_CONFIG_HOME/tapline/config},
 * else {@code ~/.config/tapline/config}; it is written with mode 0600 (its directory 0700) by
 * replacing it whole, and reads as:
 *
 * <pre>
 * current = prod
 *
 * [local]
 * url = http://localhost:8080
 *
 * [prod]
 * url = https://tapline.example.com
 * token = eyJhbGciOi...
 * </pre>
 */
public final class Profiles {

    /** Profile names: letters, digits, {@code .}, {@code _}, {@code -}; 1 to 64 characters. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * One server.
     *
     * @param url its base URL
     * @param token its bearer token, or null
     */
    public record Profile(String url, String token) {
    }

    private final Path file;
    private String current;
    private final Map<String, Profile> profiles = new LinkedHashMap<>();

    private Profiles(Path file) {
        this.file = file;
    }

    /** The profiles file's path (it may not exist). */
    public static Path defaultFile() {
        String explicit = System.getenv("TAPLINE_CONFIG");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit);
        }
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path dir = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return dir.resolve("tapline").resolve("config");
    }

    /** Reads the file; a missing file is an empty set of profiles. */
    public static Profiles load(Path file) {
        Profiles p = new Profiles(file);
        if (!Files.isRegularFile(file)) {
            return p;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "Cannot read the profiles file " + file + " (" + e.getMessage()
                    + "); check its permissions.");
        }
        String section = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                section = line.substring(1, line.length() - 1).strip();
                if (!NAME.matcher(section).matches()) {
                    throw bad(file, i, "profile names are letters, digits, '.', '_' or '-'");
                }
                p.profiles.putIfAbsent(section, new Profile(null, null));
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 1) {
                throw bad(file, i, "expected 'key = value' or '[profile]'");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (section == null) {
                if (!key.equals("current")) {
                    throw bad(file, i, "only 'current' may come before the first [profile]");
                }
                p.current = value;
            } else {
                Profile old = p.profiles.get(section);
                switch (key) {
                    case "url" -> p.profiles.put(section, new Profile(value, old.token()));
                    case "token" -> p.profiles.put(section, new Profile(old.url(), value.isEmpty() ? null : value));
                    default -> throw bad(file, i, "a profile has 'url' and 'token', not '" + key + "'");
                }
            }
        }
        return p;
    }

    private static CliException bad(Path file, int line, String why) {
        return CliException.usage("The profiles file " + file + " cannot be read at line " + (line + 1) + ": " + why
                + "; fix or delete it.");
    }

    /** Whether the file holds a token and can be read by others than its owner (warned about). */
    public boolean exposed() {
        if (profiles.values().stream().noneMatch(p -> p.token() != null)
                || !FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return false;
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            return perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.OTHERS_READ);
        } catch (IOException e) {
            return false;
        }
    }

    /** The file. */
    public Path file() {
        return file;
    }

    /** The current profile's name, or null. */
    public String current() {
        return current;
    }

    /** The profiles by name, in file order. */
    public Map<String, Profile> all() {
        return profiles;
    }

    /** A profile, or null. */
    public Profile get(String name) {
        return profiles.get(name);
    }

    /** Sets (adds or replaces) a profile. */
    public void put(String name, Profile profile) {
        profiles.put(name, profile);
    }

    /** Removes a profile (and makes none current if it was). */
    public boolean remove(String name) {
        if (name.equals(current)) {
            current = null;
        }
        return profiles.remove(name) != null;
    }

    /** Makes a profile current. */
    public void use(String name) {
        current = name;
    }

    /**
     * Writes the file whole: a temporary file of mode 0600 in the same directory, then renamed over
     * the old one, so that no reader sees half a file and the token is never readable by others.
     */
    public void save() {
        StringBuilder b = new StringBuilder("# Tapline CLI profiles: tapline login and tapline profiles write this file.\n");
        if (current != null) {
            b.append("current = ").append(current).append('\n');
        }
        profiles.forEach((name, p) -> {
            b.append('\n').append('[').append(name).append("]\n");
            if (p.url() != null) {
                b.append("url = ").append(p.url()).append('\n');
            }
            if (p.token() != null) {
                b.append("token = ").append(p.token()).append('\n');
            }
        });
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (!Files.isDirectory(dir)) {
                if (posix) {
                    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectories(dir);
                }
            }
            Path tmp = dir.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
            Files.deleteIfExists(tmp);
            if (posix) {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, b, StandardCharsets.UTF_8);
            Files.move(tmp, file.toAbsolutePath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "Cannot write the profiles file " + file + " (" + e.getMessage()
                    + "); check the directory's permissions or set TAPLINE_CONFIG.");
        }
    }
}

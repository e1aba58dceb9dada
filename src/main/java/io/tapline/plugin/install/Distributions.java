package io.tapline.plugin.install;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the installed distributions of a virtual environment from their {@code *.dist-info}
 * directories in {@code lib/python*}{@code /site-packages} (the {@code METADATA} and
 * {@code entry_points.txt} files pip writes), without starting Python. The files are the install
 * user's: each is read without following a final link and only up to {@value #MAX_FILE_BYTES}
 * bytes ({@link InstallFiles#readSmall}).
 */
final class Distributions {

    /** Largest METADATA or entry_points.txt read. */
    static final int MAX_FILE_BYTES = 8 * 1024 * 1024;
    private static final Pattern NAME_START = Pattern.compile("^([A-Za-z0-9][A-Za-z0-9._-]*)");

    /**
     * A distribution.
     *
     * @param name its {@code Name:} as written in METADATA
     * @param version its {@code Version:}
     */
    record Found(String name, String version) {
    }

    private Distributions() {
    }

    /**
     * The distribution that provides {@code command} as a console script, else the one the first
     * plain requirement of the pip_url names, else null.
     */
    static Found providing(Path env, String command, PipUrl pipUrl) throws IOException {
        List<Path> infos = distInfos(env);
        if (command != null) {
            for (Path info : infos) {
                var ep = InstallFiles.readSmall(info.resolve("entry_points.txt"), MAX_FILE_BYTES);
                if (ep.isPresent() && declaresScript(ep.get().lines().toList(), command)) {
                    return metadata(info);
                }
            }
        }
        for (String req : pipUrl.requirements()) {
            Matcher m = NAME_START.matcher(req);
            if (req.contains("/") || req.contains(":") || !m.find()) {
                continue;
            }
            String want = normalise(m.group(1));
            for (Path info : infos) {
                Found f = metadata(info);
                if (f != null && normalise(f.name()).equals(want)) {
                    return f;
                }
            }
        }
        return null;
    }

    /** Names of the files in the environment's {@code bin/}, sorted (for a failure message). */
    static List<String> commands(Path env) throws IOException {
        List<String> out = new ArrayList<>();
        Path bin = env.resolve("bin");
        if (Files.isDirectory(bin)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(bin)) {
                s.forEach(p -> out.add(p.getFileName().toString()));
            }
        }
        out.removeIf(n -> n.startsWith("python") || n.startsWith("pip") || n.startsWith("activate")
                || n.equals("Activate.ps1"));
        out.sort(null);
        return out.isEmpty() ? List.of("(none)") : out;
    }

    private static List<Path> distInfos(Path env) throws IOException {
        List<Path> out = new ArrayList<>();
        Path lib = env.resolve("lib");
        if (!Files.isDirectory(lib)) {
            return out;
        }
        try (DirectoryStream<Path> pys = Files.newDirectoryStream(lib, "python*")) {
            for (Path py : pys) {
                Path site = py.resolve("site-packages");
                if (!Files.isDirectory(site)) {
                    continue;
                }
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(site, "*.dist-info")) {
                    ds.forEach(out::add);
                }
            }
        }
        out.sort(null);
        return out;
    }

    private static boolean declaresScript(List<String> lines, String command) {
        boolean inScripts = false;
        for (String l : lines) {
            String t = l.strip();
            if (t.startsWith("[")) {
                inScripts = t.equals("[console_scripts]");
            } else if (inScripts && t.contains("=") && t.substring(0, t.indexOf('=')).strip().equals(command)) {
                return true;
            }
        }
        return false;
    }

    private static Found metadata(Path info) throws IOException {
        var md = InstallFiles.readSmall(info.resolve("METADATA"), MAX_FILE_BYTES);
        if (md.isEmpty()) {
            return null;
        }
        String name = null;
        String version = null;
        for (String l : md.get().lines().toList()) {
            if (l.isEmpty()) {
                break;
            }
            if (name == null && l.startsWith("Name:")) {
                name = cut(l.substring(5).strip(), 200);
            } else if (version == null && l.startsWith("Version:")) {
                version = cut(l.substring(8).strip(), 100);
            }
        }
        return name == null ? null : new Found(name, version);
    }

    /** At most {@code max} characters (the columns of plugin_install). */
    private static String cut(String s, int max) {
        return s.length() > max ? s.substring(0, max) : s;
    }

    private static String normalise(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[-_.]+", "-");
    }
}

package io.tapline.plugin.install;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.json.Jsons;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Where one plugin's virtual environment lives on this replica, and whether it is installed.
 * The layout follows Meltano's {@code .meltano/<type>/<name>/venv}:
 *
 * <pre>
 * &lt;tapline.plugins.dir&gt;/&lt;type&gt;/&lt;name&gt;/
 *   venv                -> env-&lt;id&gt;   (a symbolic link, swapped atomically; or a real directory built by an image)
 *   env-&lt;id&gt;/bin/&lt;executable&gt;       the environment (python -m venv), its console scripts in bin/
 *   env-&lt;id&gt;/.tapline-install.json    the marker, written last: {"layout", "fingerprint", "pipUrl", "python", ...}
 *   .install.lock       the file lock that keeps two processes on one filesystem from installing at once
 * </pre>
 *
 * A plugin is installed when {@code venv/.tapline-install.json} exists and its fingerprint equals
 * {@link #fingerprint(String, String)} of the plugin's current pip_url and python: an install
 * interrupted at any point leaves no marker (or the previous one), and a changed pip_url or
 * python invalidates the environment. Pure file-system logic, no CDI.
 *
 * @param dir the plugin's directory {@code <plugins dir>/<type>/<name>}
 */
public record PluginEnvironment(Path dir) {

    /** Version of this layout; part of the fingerprint, so a new layout rebuilds every environment. */
    public static final int LAYOUT = 1;
    /** The marker file inside the environment. */
    public static final String MARKER = ".tapline-install.json";
    /** A marker larger than this is not one (it is read without following a link, and only this far). */
    static final int MARKER_MAX_BYTES = 64 * 1024;

    /** The plugin's directory under the plugins root (type and name are checked names: no '/' or '..'). */
    public static PluginEnvironment of(Path pluginsDir, String type, String name) {
        return new PluginEnvironment(pluginsDir.toAbsolutePath().normalize().resolve(type).resolve(name));
    }

    /**
     * The fingerprint of an environment: hex SHA-256 of {@code "tapline-plugin-env/<LAYOUT>\n<python>\n<pipUrl>"},
     * as {@code python3 -c 'import hashlib,sys; print(hashlib.sha256(("tapline-plugin-env/1\n"+sys.argv[1]+"\n"+sys.argv[2]).encode()).hexdigest())' python3 "$PIP_URL"}
     * computes it (Dockerfile.connectors.example).
     *
     * @param python the interpreter as configured (the plugin's {@code python}, else {@code tapline.plugins.python})
     * @param pipUrl the pip_url as written; a literal credential in a URL's user info counts as
     *     {@code ********} ({@link PipUrl#masked}), so a rotated token does not rebuild the environment
     *     and the marker holds no credential
     */
    public static String fingerprint(String python, String pipUrl) {
        pipUrl = PipUrl.masked(pipUrl);
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(("tapline-plugin-env/" + LAYOUT + "\n" + python + "\n"
                    + pipUrl).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code <dir>/venv}: the path executables resolve under. */
    public Path venv() {
        return dir.resolve("venv");
    }

    /** The file lock's file. */
    public Path lockFile() {
        return dir.resolve(".install.lock");
    }

    /** Where a command of the environment is: {@code <dir>/venv/bin/<command>}. */
    public Path bin(String command) {
        return venv().resolve("bin").resolve(command);
    }

    /**
     * The marker of the current environment, when there is one and it is readable: a regular file
     * (not a link) of at most 64 KiB holding a JSON object with a {@code fingerprint}.
     *
     * @return the marker, or empty when nothing is installed (or an install was interrupted)
     */
    public Optional<Marker> marker() {
        Optional<String> text = InstallFiles.readSmall(venv().resolve(MARKER), MARKER_MAX_BYTES);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            JsonNode n = Jsons.read(text.get());
            if (n == null || !n.isObject() || !n.path("fingerprint").isTextual()) {
                return Optional.empty();
            }
            return Optional.of(new Marker(n.path("fingerprint").asText(), text(n, "pipUrl"), text(n, "python"),
                    text(n, "distribution"), text(n, "version"), text(n, "installedAt")));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The marker when it matches this pip_url and python (the plugin is installed), else empty. */
    public Optional<Marker> installed(String python, String pipUrl) {
        String want = fingerprint(python, pipUrl);
        return marker().filter(m -> m.fingerprint().equals(want));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /**
     * What an install wrote last.
     *
     * @param fingerprint {@link #fingerprint} of the pip_url and python it was built from
     * @param pipUrl the pip_url
     * @param python the interpreter
     * @param distribution the distribution that provides the executable, or null when not found
     * @param version its version, or null
     * @param installedAt when it was finished (ISO-8601 UTC), or null
     */
    public record Marker(String fingerprint, String pipUrl, String python, String distribution, String version,
                         String installedAt) {
    }
}

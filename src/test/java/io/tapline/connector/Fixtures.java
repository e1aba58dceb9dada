package io.tapline.connector;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test resources: the recorded Singer streams in {@code singer/} and the scripts in {@code connectors/}. */
final class Fixtures {

    /** The recorded tap outputs (SCHEMA/RECORD/STATE streams). */
    static final List<String> TAP_OUTPUTS = List.of(
            "classic-tap-csv.tap-stdout.jsonl",
            "sdk-tap-csv.tap-stdout.jsonl",
            "sdk-tap-sqlite.run1.tap-stdout.jsonl",
            "sdk-tap-sqlite.run2-with-state.tap-stdout.jsonl",
            "spreadsheets-anywhere.run1.tap-stdout.jsonl");

    /** The recorded target outputs (state lines: JSON objects without "type"). */
    static final List<String> TARGET_OUTPUTS = List.of(
            "classic-tap-csv.target-csv-stdout.jsonl",
            "spreadsheets-anywhere.run1.target-jsonl-stdout.jsonl");

    private Fixtures() {
    }

    /** The bytes of {@code singer/<name>}. */
    static byte[] singer(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/singer/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("No test resource singer/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lines of {@code singer/<name>}, without terminators. */
    static List<byte[]> singerLines(String name) {
        byte[] all = singer(name);
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '\n') {
                lines.add(java.util.Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        if (start < all.length) {
            lines.add(java.util.Arrays.copyOfRange(all, start, all.length));
        }
        return lines;
    }

    /** The path of {@code connectors/<name>} (a Python script) in the test classpath. */
    static Path connector(String name) {
        return resource("/connectors/" + name);
    }

    /** The path of {@code singer/<name>} in the test classpath. */
    static Path singerPath(String name) {
        return resource("/singer/" + name);
    }

    private static Path resource(String name) {
        URL url = Fixtures.class.getResource(name);
        if (url == null) {
            throw new IllegalArgumentException("No test resource " + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String python;

    /**
     * The absolute path of the Python interpreter that {@code python3} on the test's PATH runs.
     * Tests start it directly: wrappers such as pyenv's shims are shell scripts that add their own
     * environment variables before running the interpreter.
     */
    static synchronized String python() {
        if (python == null) {
            try {
                Process probe = new ProcessBuilder("python3", "-c", "import sys; sys.stdout.write(sys.executable)")
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                String executable = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                if (probe.waitFor() != 0 || executable.isEmpty()) {
                    throw new IllegalStateException("python3 did not report its executable");
                }
                python = executable;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return python;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

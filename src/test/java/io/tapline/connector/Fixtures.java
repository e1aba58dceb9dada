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
        URL url = Fixtures.class.getResource("/connectors/" + name);
        if (url == null) {
            throw new IllegalArgumentException("No test resource connectors/" + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

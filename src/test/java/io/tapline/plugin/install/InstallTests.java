package io.tapline.plugin.install;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tapline.support.Connectors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;

/** What the install tests share: a pipeline whose tap is only a pip_url, and the dumps of {@link TestPackages#envSource}. */
final class InstallTests {

    /** The service's plugins directory in the test profile ({@code %test.tapline.plugins.dir}). */
    static final Path PLUGINS = Path.of("target/test-plugins").toAbsolutePath();

    private InstallTests() {
    }

    /**
     * An extractor that is only a pip_url (with {@code extras}, may be empty), the test target as
     * loader, and a pipeline of the two, created on the service RestAssured points at.
     *
     * @return the pipeline's name
     */
    static String pipeline(String tap, String pipUrl, String executable, Map<String, Object> extras) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", tap);
        t.put("executable", executable);
        t.put("pipUrl", pipUrl);
        if (!extras.isEmpty()) {
            t.put("extras", extras);
        }
        json().body(t).post("/api/v1/plugins/extractors").then().statusCode(201);
        String target = unique("target");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString(), "config", Map.of()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String name = unique("pl");
        json().body(Map.of("name", name, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        return name;
    }

    /** A dump of {@link TestPackages#envSource}'s build backend: its uid and environment. */
    record Dump(int uid, Map<String, String> env, String text) {
    }

    /** The dumps written to {@code dir}, one per build. */
    static List<Dump> dumps(Path dir) throws IOException {
        ObjectMapper m = new ObjectMapper();
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("env-\\d+\\.json")).sorted().map(p -> {
                try {
                    String text = Files.readString(p);
                    Map<String, Object> d = m.readValue(text, new TypeReference<>() { });
                    @SuppressWarnings("unchecked")
                    Map<String, String> env = (Map<String, String>) d.get("env");
                    return new Dump(((Number) d.get("uid")).intValue(), env, text);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toList();
        }
    }

    /**
     * The variables a build backend may see: {@link InstallEnv}'s allow-list and what the install
     * sets (PATH, HOME, TMPDIR, PIP_*, PYTHONUNBUFFERED), plus what pip and its build hooks set
     * for the build ({@code PIP_*}, {@code PYTHONNOUSERSITE}, {@code PYTHONPATH} of the isolated
     * build environment, {@code _PYPROJECT_HOOKS_*} / {@code PEP517_*}).
     */
    static boolean allowed(String name) {
        return InstallEnv.NAMES.contains(name) || name.startsWith("LC_") || name.startsWith("PIP_")
                || name.startsWith("_PYPROJECT_HOOKS_") || name.startsWith("PEP517_")
                || List.of("PATH", "HOME", "TMPDIR", "PYTHONUNBUFFERED", "PYTHONNOUSERSITE", "PYTHONPATH")
                .contains(name);
    }
}

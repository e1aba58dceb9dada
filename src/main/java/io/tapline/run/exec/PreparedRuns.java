package io.tapline.run.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunFailure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link PreparedRun} as JSON, the content of the per-run Secret of the {@code kubernetes}
 * executor: the replica that claims the run resolves references and decrypts secrets once, and the
 * runner in the Job's pod reads them from the mounted Secret instead of needing the encryption key.
 *
 * <p>Shape: {@code {"extractor": {..}|null, "mappers": [{..}], "loader": {..}|null,
 * "transform": {..}|null, "env": {"<plugin>": {"NAME": "value"}}, "secrets": ["..."]}}. The
 * inherited variables are not carried: the runner inherits its own pod's.
 */
final class PreparedRuns {

    private PreparedRuns() {
    }

    /** The JSON text of a prepared run (it holds decrypted secrets: only for the per-run Secret). */
    static String write(PreparedRun p) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.set("extractor", p.extractor());
        ArrayNode maps = o.putArray("mappers");
        p.mappers().forEach(maps::add);
        o.set("loader", p.loader());
        o.set("transform", p.transform());
        ObjectNode env = o.putObject("env");
        p.env().forEach((plugin, vars) -> {
            ObjectNode e = env.putObject(plugin);
            vars.forEach(e::put);
        });
        ArrayNode secrets = o.putArray("secrets");
        p.secrets().forEach(secrets::add);
        return Jsons.write(o);
    }

    /**
     * Reads a prepared run written by {@link #write}.
     *
     * @param inherited the runner's own inherited variables
     * @throws RunFailure (configuration) when the file is missing or malformed
     */
    static PreparedRun read(Path file, Map<String, String> inherited) {
        JsonNode o;
        try {
            o = Jsons.MAPPER.readTree(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            throw new RunFailure(io.tapline.invocation.FailedComponent.SERVICE, io.tapline.invocation.FailureType.CONFIGURATION,
                    "the prepared run " + file + " could not be read: " + e.getMessage());
        }
        if (o == null || !o.isObject()) {
            throw new RunFailure(io.tapline.invocation.FailedComponent.SERVICE, io.tapline.invocation.FailureType.CONFIGURATION,
                    "the prepared run " + file + " is not a JSON object");
        }
        List<ObjectNode> mappers = new ArrayList<>();
        o.path("mappers").forEach(m -> mappers.add((ObjectNode) m));
        Map<String, Map<String, String>> env = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = o.path("env").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Map<String, String> vars = new LinkedHashMap<>();
            e.getValue().fields().forEachRemaining(v -> vars.put(v.getKey(), v.getValue().asText()));
            env.put(e.getKey(), vars);
        }
        List<String> secrets = new ArrayList<>();
        o.path("secrets").forEach(s -> secrets.add(s.asText()));
        return new PreparedRun(object(o.get("extractor")), mappers, object(o.get("loader")), object(o.get("transform")),
                env, inherited, List.copyOf(secrets));
    }

    private static ObjectNode object(JsonNode n) {
        return n instanceof ObjectNode on ? on : null;
    }
}

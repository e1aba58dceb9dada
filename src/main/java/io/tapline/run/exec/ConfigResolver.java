package io.tapline.run.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves references in plugin config and env values, only when a run starts:
 * <ul>
 *   <li>{@code ${env:NAME}}: the service's environment variable {@code NAME};</li>
 *   <li>{@code ${secret:NAME}}: the file {@code NAME} in the secrets directory (a mounted
 *   Kubernetes Secret), trailing newline removed;</li>
 *   <li>{@code ${file:/abs/path}}: the content of that file, trailing newline removed;</li>
 *   <li>{@code ${NAME}} and {@code $NAME}: Meltano's env expansion, from the run's environment
 *   (pipeline env over plugin env over the service's inherited variables).</li>
 * </ul>
 * A value that is exactly one reference is replaced whole; references inside a longer string are
 * substituted in place. {@code $$} is a literal {@code $}. Every resolved value of an env, secret or
 * file reference is collected as a secret, so run logs can mask it. A missing variable or file is a
 * {@link ConfigReferenceException} naming the setting and the reference (never its value).
 */
public final class ConfigResolver {

    private static final Pattern REF = Pattern.compile(
            "\\$\\$|\\$\\{(env|secret|file):([^}]+)}|\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    private final Function<String, String> serviceEnv;
    private final Map<String, String> runEnv;
    private final Path secretsDir;
    private final Set<String> secrets = new LinkedHashSet<>();

    /**
     * @param serviceEnv lookup of the service's own environment ({@code System::getenv})
     * @param runEnv the run's environment for Meltano-style {@code ${NAME}} expansion
     * @param secretsDir directory of {@code ${secret:NAME}} files, or null when none is configured
     */
    public ConfigResolver(Function<String, String> serviceEnv, Map<String, String> runEnv, Path secretsDir) {
        this.serviceEnv = serviceEnv;
        this.runEnv = runEnv;
        this.secretsDir = secretsDir;
    }

    /** A resolved copy of a JSON config; {@code path} names the plugin for errors. */
    public ObjectNode resolve(ObjectNode config, String path) {
        return (ObjectNode) resolveNode(config, path);
    }

    /** Resolves one string value. */
    public String resolveString(String value, String path) {
        Matcher m = REF.matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String rep;
            if (m.group().equals("$$")) {
                rep = "$";
            } else if (m.group(1) != null) {
                rep = lookup(m.group(1), m.group(2).trim(), path);
                secrets.add(rep);
            } else {
                String name = m.group(3) != null ? m.group(3) : m.group(4);
                rep = runEnv.get(name);
                if (rep == null) {
                    rep = serviceEnv.apply(name);
                }
                if (rep == null) {
                    throw new ConfigReferenceException(path + " refers to $" + "{" + name + "}, which is not set");
                }
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(rep));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** Every value resolved from an env, secret or file reference so far. */
    public Set<String> secrets() {
        return secrets;
    }

    private JsonNode resolveNode(JsonNode node, String path) {
        if (node.isTextual()) {
            return TextNode.valueOf(resolveString(node.asText(), path));
        }
        if (node instanceof ObjectNode o) {
            ObjectNode out = o.objectNode();
            o.fields().forEachRemaining(e -> out.set(e.getKey(), resolveNode(e.getValue(), path + "." + e.getKey())));
            return out;
        }
        if (node instanceof ArrayNode a) {
            ArrayNode out = a.arrayNode();
            for (int i = 0; i < a.size(); i++) {
                out.add(resolveNode(a.get(i), path + "[" + i + "]"));
            }
            return out;
        }
        return node;
    }

    private String lookup(String kind, String name, String path) {
        switch (kind) {
            case "env" -> {
                String v = serviceEnv.apply(name);
                if (v == null) {
                    throw new ConfigReferenceException(path + " refers to ${env:" + name
                            + "}, but the service has no environment variable " + name);
                }
                return v;
            }
            case "secret" -> {
                if (secretsDir == null) {
                    throw new ConfigReferenceException(path + " refers to ${secret:" + name
                            + "}, but no secrets directory is configured (tapline.secrets.dir)");
                }
                if (!name.matches("[A-Za-z0-9._-]{1,253}") || name.startsWith(".")) {
                    throw new ConfigReferenceException(path + " refers to an invalid secret name");
                }
                return read(secretsDir.resolve(name), path, "${secret:" + name + "}");
            }
            default -> {
                Path p = Path.of(name);
                if (!p.isAbsolute()) {
                    throw new ConfigReferenceException(path + " refers to ${file:" + name + "}; use an absolute path");
                }
                return read(p, path, "${file:" + name + "}");
            }
        }
    }

    private static String read(Path file, String path, String ref) {
        try {
            String s = Files.readString(file, StandardCharsets.UTF_8);
            return s.endsWith("\n") ? s.substring(0, s.length() - (s.endsWith("\r\n") ? 2 : 1)) : s;
        } catch (IOException e) {
            throw new ConfigReferenceException(path + " refers to " + ref + ", which cannot be read");
        }
    }

    /** A reference that cannot be resolved; the message names the setting, never a value. */
    public static class ConfigReferenceException extends RuntimeException {
        public ConfigReferenceException(String message) {
            super(message);
        }
    }
}

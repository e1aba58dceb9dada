package io.tapline.invocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.SecretCipher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves references in plugin config and env values, only when a run starts:
 * <ul>
 *   <li>{@code ${env:NAME}}: the service's environment variable {@code NAME}, only when {@code NAME}
 *   is in {@code tapline.runner.inherit-env} or {@code tapline.runner.env-references} (anything
 *   else in the service's environment, such as the database password, cannot be read);</li>
 *   <li>{@code ${secret:NAME}}: the file {@code NAME} in the secrets directory (a mounted
 *   Kubernetes Secret), trailing newline removed;</li>
 *   <li>{@code ${file:/abs/path}}: the content of that file, trailing newline removed;</li>
 *   <li>{@code ${NAME}} and {@code $NAME}: Meltano's env expansion, from the plugin's own env, then
 *   the pipeline's env, then the inherited variables ({@code tapline.runner.inherit-env}); never the
 *   rest of the service's environment.</li>
 * </ul>
 * A value that is exactly one reference is replaced whole; references inside a longer string are
 * substituted in place. {@code $$} is a literal {@code $}. Every value read from the service's
 * environment, a secret or a file is collected as a secret, so run logs mask it; values from the
 * plugin's or pipeline's env are readable through the API anyway and are not. A file (of either
 * kind) is read only when it is a regular file of at most {@link #MAX_FILE_BYTES} bytes whose path,
 * as written and as really located, is not under {@code /proc}, {@code /sys}, {@code /dev/fd} or
 * {@code /dev/std*} (where the service's own environment lives). A missing variable or file is a
 * {@link ConfigReferenceException} naming the setting and the reference (never its value).
 */
public final class ConfigResolver {

    /** Largest file a {@code ${file:...}} or {@code ${secret:...}} reference reads, in bytes. */
    public static final int MAX_FILE_BYTES = 1 << 20;

    private static final Path DEV = Path.of("/dev");
    private static final List<Path> SPECIAL = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev/fd"));

    private static final Pattern REF = Pattern.compile(
            "\\$\\$|\\$\\{(env|secret|file):([^}]+)}|\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    /**
     * True when {@code value} is exactly one reference of this grammar ({@code ${env:X}},
     * {@code ${secret:X}}, {@code ${file:/p}}, {@code ${NAME}} or {@code $NAME}) with nothing
     * around it; {@code $$} (an escaped dollar) is not a reference.
     */
    public static boolean isWholeReference(String value) {
        if (value == null) {
            return false;
        }
        java.util.regex.Matcher m = REF.matcher(value.trim());
        return m.matches() && !"$$".equals(m.group());
    }

    private final Function<String, String> serviceEnv;
    private final Set<String> inherited;
    private final Set<String> envReferences;
    private final Map<String, String> pluginEnv;
    private final Map<String, String> runEnv;
    private final Path secretsDir;
    private final Set<String> secrets;

    /**
     * @param serviceEnv lookup of the service's own environment ({@code System::getenv})
     * @param inherited names of service variables passed to connectors ({@code tapline.runner.inherit-env}):
     *     readable by {@code $NAME} and {@code ${env:NAME}}
     * @param envReferences further service variables only {@code ${env:NAME}} may read
     *     ({@code tapline.runner.env-references})
     * @param runEnv the pipeline's environment for Meltano-style {@code ${NAME}} expansion
     * @param secretsDir directory of {@code ${secret:NAME}} files, or null when none is configured
     */
    public ConfigResolver(Function<String, String> serviceEnv, Collection<String> inherited,
                          Collection<String> envReferences, Map<String, String> runEnv, Path secretsDir) {
        this(serviceEnv, Set.copyOf(inherited), Set.copyOf(envReferences), Map.of(), runEnv, secretsDir,
                new LinkedHashSet<>());
    }

    private ConfigResolver(Function<String, String> serviceEnv, Set<String> inherited, Set<String> envReferences,
                           Map<String, String> pluginEnv, Map<String, String> runEnv, Path secretsDir,
                           Set<String> secrets) {
        this.serviceEnv = serviceEnv;
        this.inherited = inherited;
        this.envReferences = envReferences;
        this.pluginEnv = pluginEnv;
        this.runEnv = runEnv;
        this.secretsDir = secretsDir;
        this.secrets = secrets;
    }

    /** The resolver of a run: the service's environment behind the configured allow-lists. */
    public static ConfigResolver forRun(TaplineConfig config, Map<String, String> runEnv) {
        return new ConfigResolver(System::getenv, config.runner().inheritEnv(),
                config.runner().envReferences().orElse(List.of()), runEnv, config.secrets().dir().orElse(null));
    }

    /**
     * A resolver for one plugin's config and env: {@code ${NAME}} looks in {@code env} (the plugin's
     * own env, as stored) first. Shares the collected secrets with this resolver.
     */
    public ConfigResolver withPluginEnv(Map<String, String> env) {
        return new ConfigResolver(serviceEnv, inherited, envReferences, env == null ? Map.of() : env, runEnv,
                secretsDir, secrets);
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
                rep = expand(m.group(3) != null ? m.group(3) : m.group(4), path);
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(rep));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** Every value read from the service's environment, a secret or a file so far (shared with {@link #withPluginEnv}). */
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

    /** {@code ${NAME}}: plugin env, pipeline env, inherited service variables (masked), else an error. */
    private String expand(String name, String path) {
        String v = pluginEnv.get(name);
        if (v == null) {
            v = runEnv.get(name);
        }
        if (v != null && SecretCipher.isSealed(v)) {
            throw new ConfigReferenceException(path + " refers to $" + "{" + name + "}, a sensitive variable;"
                    + " give the value itself a reference ($" + "{secret:...}) instead");
        }
        if (v == null && inherited.contains(name)) {
            v = serviceEnv.apply(name);
            if (v != null) {
                secrets.add(v);
            }
        }
        if (v == null) {
            throw new ConfigReferenceException(path + " refers to $" + "{" + name + "}, which is not set in the"
                    + " plugin's env, the pipeline's env or the inherited variables (tapline.runner.inherit-env)");
        }
        return v;
    }

    private String lookup(String kind, String name, String path) {
        switch (kind) {
            case "env" -> {
                if (!inherited.contains(name) && !envReferences.contains(name)) {
                    throw new ConfigReferenceException(path + " refers to $" + "{env:" + name + "}, which the service"
                            + " does not pass on: list it in tapline.runner.env-references (or inherit-env)");
                }
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

    /**
     * The text of a referenced file, trailing newline removed. Refused, by the path as written and by
     * its real location (every symlink and {@code ..} resolved, as the kernel opens it): anything
     * under {@code /proc} or {@code /sys} (where the service's own environment and memory are, also
     * reached through {@code /dev/fd}, {@code /dev/std*} or a link), {@code /dev/fd} and
     * {@code /dev/std*} themselves, anything that is not a regular file (a device, a FIFO), and files
     * larger than {@value #MAX_FILE_BYTES} bytes. The real path is what is read, without following a
     * link at its last step, so the check and the read see the same file.
     */
    private static String read(Path file, String path, String ref) {
        refuseSpecial(file, path, ref);
        refuseSpecial(file.normalize(), path, ref);
        Path real;
        try {
            real = file.toRealPath();
        } catch (IOException e) {
            throw new ConfigReferenceException(path + " refers to " + ref + ", which cannot be read");
        }
        refuseSpecial(real, path, ref);
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new ConfigReferenceException(path + " refers to " + ref + ", which is not a regular file");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(real, LinkOption.NOFOLLOW_LINKS)) {
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new ConfigReferenceException(path + " refers to " + ref + ", which cannot be read");
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw new ConfigReferenceException(path + " refers to " + ref + ", which is larger than "
                    + MAX_FILE_BYTES + " bytes");
        }
        String s = new String(bytes, StandardCharsets.UTF_8);
        return s.endsWith("\n") ? s.substring(0, s.length() - (s.endsWith("\r\n") ? 2 : 1)) : s;
    }

    /** Refuses a path under /proc, /sys or /dev/fd, or /dev/stdin, /dev/stdout, /dev/stderr. */
    private static void refuseSpecial(Path p, String path, String ref) {
        Path parent = p.getParent();
        boolean std = DEV.equals(parent) && p.getFileName().toString().startsWith("std");
        if (std || SPECIAL.stream().anyMatch(p::startsWith)) {
            throw new ConfigReferenceException(path + " refers to " + ref + "; files under /proc and /sys are"
                    + " not read, nor /dev/fd and /dev/std*, by any path or link that leads there");
        }
    }

    /** A reference that cannot be resolved; the message names the setting, never a value. */
    public static class ConfigReferenceException extends RuntimeException {
        public ConfigReferenceException(String message) {
            super(message);
        }
    }
}

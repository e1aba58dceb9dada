package io.tapline.invocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.common.security.SecretCipher;
import io.tapline.plugin.PluginMapper;
import io.tapline.plugin.PluginSecrets;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The preparation stage of every executor, before anything starts and before the run log opens:
 * resolves references ({@code ${NAME}}, {@code ${env:...}}, {@code ${secret:...}}) in each plugin's
 * config and env and in the pipeline's env, decrypts sealed sensitive values and uses every
 * sensitive value literally (only a value that is one whole reference is resolved), collects
 * them for masking, and checks the executables. Every failure
 * here is a {@link FailureType#CONFIGURATION} failure of the service: never retried.
 *
 * <p>The executable check ({@link #checkExecutables}) is the one place where the run makes sure each
 * plugin's executable may and can run; a step that provides a missing executable belongs there.
 */
@ApplicationScoped
public class RunPreparation {

    private final TaplineConfig config;
    private final SecretCipher cipher;
    private final ExecutablePolicy executables;

    public RunPreparation(TaplineConfig config, SecretCipher cipher, ExecutablePolicy executables) {
        this.config = config;
        this.cipher = cipher;
        this.executables = executables;
    }

    /**
     * Prepares a run.
     *
     * @param plugins true to prepare the plan's plugins (executor {@code singer}); false for the
     *     pipeline env only (executor {@code meltano}: Meltano resolves its own plugins)
     * @throws RunFailure (configuration) on an unresolvable reference or an undecryptable secret;
     *     executables are checked later by {@link #checkExecutables}, after installation
     */
    public PreparedRun prepare(RunPlan plan, boolean plugins) {
        try {
            ConfigResolver resolver = ConfigResolver.forRun(config, new LinkedHashMap<>(plan.env()));
            List<String> secrets = new ArrayList<>();
            Map<String, Map<String, String>> env = new LinkedHashMap<>();
            ObjectNode ex = null;
            ObjectNode lo = null;
            ObjectNode tr = null;
            List<ObjectNode> maps = new ArrayList<>();
            if (plugins) {
                ex = resolveComponent(plan.extractor(), resolver, env, secrets);
                for (RunPlan.Component m : plan.mappers()) {
                    maps.add(resolveComponent(m, resolver, env, secrets));
                }
                lo = resolveComponent(plan.loader(), resolver, env, secrets);
                tr = plan.transform() == null ? null : resolveComponent(plan.transform(), resolver, env, secrets);
            }
            Map<String, String> pipelineEnv = new LinkedHashMap<>();
            plan.env().forEach((k, v) -> pipelineEnv.put(k, resolver.resolveString(v, "pipeline env " + k)));
            env.put("", pipelineEnv);
            secrets.addAll(0, resolver.secrets());
            return new PreparedRun(ex, maps, lo, tr, env, inherited(), List.copyOf(secrets));
        } catch (ConfigResolver.ConfigReferenceException e) {
            throw new RunFailure(FailedComponent.SERVICE, FailureType.CONFIGURATION, e.getMessage());
        }
    }

    /**
     * One plugin resolved outside a run, exactly as a run resolves it (without a pipeline's env):
     * used by the catalog endpoints ({@code :discover}, {@code :test}, {@code /about}).
     *
     * @param config the resolved, decrypted config
     * @param pluginEnv the plugin's own env, resolved
     * @param processEnv the environment its process gets: inherited variables, then the plugin's
     * @param secrets values to mask in anything shown
     */
    public record Resolved(ObjectNode config, Map<String, String> pluginEnv, Map<String, String> processEnv,
                           List<String> secrets) {
    }

    /**
     * Resolves one plugin's references and decrypts its sealed values, as {@link #prepare} does.
     *
     * @throws IllegalArgumentException with a readable reason (never a value) when a reference
     *     cannot be resolved or a secret cannot be decrypted
     */
    public Resolved resolvePlugin(RunPlan.Component c) {
        try {
            ConfigResolver resolver = ConfigResolver.forRun(config, new LinkedHashMap<>());
            List<String> secrets = new ArrayList<>();
            Map<String, Map<String, String>> env = new LinkedHashMap<>();
            ObjectNode resolved = resolveComponent(c, resolver, env, secrets);
            secrets.addAll(0, resolver.secrets());
            Map<String, String> own = env.getOrDefault(c.name(), Map.of());
            Map<String, String> process = new LinkedHashMap<>(inherited());
            process.putAll(own);
            return new Resolved(resolved, own, process, List.copyOf(secrets));
        } catch (ConfigResolver.ConfigReferenceException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Fails the run (before anything starts) when an executable is not allowed, looked up as the
     * process supervisor will: on the process environment's PATH. Called after the installation
     * stage ({@link RunInstalls}), which may have resolved executables
     * into managed virtual environments.
     *
     * @throws RunFailure (configuration) for a missing or disallowed executable
     */
    public void checkExecutables(RunPlan plan, PreparedRun prepared) {
        Path workDir = config.runner().runsDir().resolve(plan.runId().toString()).toAbsolutePath();
        for (Map.Entry<String, RunPlan.Component> e : plan.processes().entrySet()) {
            Optional<String> reason = executables.violation(e.getKey(), e.getValue().executable(),
                    prepared.env(e.getValue().name()).get("PATH"), workDir);
            if (reason.isPresent()) {
                throw new RunFailure(FailedComponent.SERVICE, FailureType.CONFIGURATION, reason.get());
            }
        }
    }

    /** The variables of the service's environment that connectors inherit. */
    public Map<String, String> inherited() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : config.runner().inheritEnv()) {
            String v = System.getenv(name);
            if (v != null) {
                env.put(name, v);
            }
        }
        return env;
    }

    private ObjectNode resolveComponent(RunPlan.Component c, ConfigResolver resolver,
                                        Map<String, Map<String, String>> env, List<String> sensitive) {
        String where = c.type() + "/" + c.name();
        ConfigResolver own = resolver.withPluginEnv(c.env());
        // A sensitive value is used literally (a password may hold '$'), whether it is stored
        // encrypted or, without an encryption key, as it was sent; only a value that is one whole
        // reference (${env:DB_PASSWORD}, ${secret:pg}, $TAP_PASSWORD) is resolved.
        ObjectNode raw = c.config().deepCopy();
        Map<String, JsonNode> literal = new LinkedHashMap<>();
        for (String s : c.sensitive()) {
            JsonNode v = PluginMapper.at(raw, s);
            if (v != null && !v.isNull() && !(v.isTextual() && (SecretCipher.isSealed(v.asText())
                    || ConfigResolver.isWholeReference(v.asText())))) {
                literal.put(s, v);
                PluginMapper.set(raw, s, com.fasterxml.jackson.databind.node.NullNode.getInstance());
            }
        }
        ObjectNode resolved = own.resolve(raw, where + " config");
        literal.forEach((s, v) -> PluginMapper.set(resolved, s, v));
        for (String s : c.sensitive()) {
            JsonNode v = PluginMapper.at(resolved, s);
            if (v != null && v.isTextual() && SecretCipher.isSealed(v.asText())) {
                v = open(v.asText(), where + " config." + s);
                PluginMapper.set(resolved, s, v);
            }
            collectSecrets(v, sensitive);
        }
        Map<String, String> e = new LinkedHashMap<>();
        c.env().forEach((k, v) -> {
            boolean asIs = c.sensitive().contains(k) && v != null && !SecretCipher.isSealed(v) && !ConfigResolver.isWholeReference(v);
            String value = asIs ? v : own.resolveString(v, where + " env " + k);
            if (c.sensitive().contains(k) && SecretCipher.isSealed(value)) {
                JsonNode opened = open(value, where + " env " + k);
                value = opened.isTextual() ? opened.asText() : Jsons.write(opened);
            }
            e.put(k, value);
            if (c.sensitive().contains(k)) {
                sensitive.add(value);
            }
        });
        env.put(c.name(), e);
        return resolved;
    }

    /** Decrypts a sealed sensitive value; a failure names the setting and key id, never a value. */
    private JsonNode open(String sealed, String setting) {
        try {
            return PluginSecrets.open(sealed, cipher);
        } catch (SecretCipher.SecretException e) {
            throw new ConfigResolver.ConfigReferenceException(setting + " " + e.getMessage());
        }
    }

    /** Adds every scalar inside a sensitive value to the values the run log masks. */
    private static void collectSecrets(JsonNode v, List<String> sensitive) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return;
        }
        if (v.isValueNode()) {
            sensitive.add(v.asText());
        } else {
            v.elements().forEachRemaining(x -> collectSecrets(x, sensitive));
            if (v.isContainerNode()) {
                sensitive.add(Jsons.write(v));
            }
        }
    }
}

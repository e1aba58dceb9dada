package io.tapline.project.assess;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.schedule.Interval;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginType;
import io.tapline.project.ProjectImport;
import io.tapline.project.SensitiveNames;
import io.tapline.project.assess.ProjectAssessment.Finding;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The project assessment. Maturity comes from the environments of the last import: {@code basic};
 * {@code developing} with 2 or more environments; {@code mature} with a production environment
 * ({@code prod} or {@code production}, any case) and 3 or more. Findings come from what the
 * service holds now:
 * <ul>
 *   <li>{@code incremental-without-state}: an extractor with INCREMENTAL metadata but without the
 *   {@code state} capability gets no bookmarks (Meltano passes {@code --state} only with it);</li>
 *   <li>{@code schedule-without-timezone}: an imported schedule without a {@code timezone} runs in UTC;</li>
 *   <li>{@code select-without-catalog}: select rules of an extractor without the {@code catalog} or
 *   {@code properties} capability are never applied;</li>
 *   <li>{@code sensitive-not-marked}: a setting whose name looks secret (password, secret, token,
 *   key, ...) is not marked sensitive, so it is shown and exported in clear;</li>
 *   <li>{@code secret-value-in-config}: a sensitive setting holds a literal value instead of a
 *   {@code ${VAR}} reference;</li>
 *   <li>{@code capabilities-unknown}: an extractor, loader or mapper lists no capabilities and was
 *   not asked yet ({@code capabilitiesSource} null; it is asked before its first use);</li>
 *   <li>{@code capabilities-assumed}: one that could not answer {@code --about --format=json}, so
 *   Meltano's conventional capabilities for its type are assumed ({@code capabilitiesSource: default}).</li>
 * </ul>
 */
public final class ProjectAssessor {

    private ProjectAssessor() {
    }

    /**
     * The assessment of the project held now.
     *
     * @param last the newest import, or null before any
     */
    public static ProjectAssessment assess(ProjectImport last, List<Plugin> plugins, List<Pipeline> pipelines) {
        List<String> environments = last == null ? List.of() : Jsons.readStrings(last.environments);
        boolean production = environments.stream().anyMatch(e -> {
            String n = e.toLowerCase(Locale.ROOT);
            return n.equals("prod") || n.equals("production");
        });
        String level = production && environments.size() >= 3 ? "mature"
                : environments.size() >= 2 ? "developing" : "basic";
        List<Finding> findings = new ArrayList<>();
        for (Plugin p : plugins) {
            String subject = p.type.id() + "/" + p.name;
            List<String> caps = Jsons.readStrings(p.capabilities);
            boolean unknown = p.capabilitiesSource == null && CapabilitySource.asked(p.type);
            if (unknown) {
                findings.add(new Finding("capabilities-unknown", "info", subject, "'" + p.name + "' lists no"
                        + " capabilities and was not asked yet: it is asked (--about --format=json) before its first run,"
                        + " discovery or test, and Meltano's conventional ones for " + p.type.id() + " apply if it"
                        + " cannot answer. List them (capabilities:) to decide yourself."));
            } else if (CapabilitySource.DEFAULT.id().equals(p.capabilitiesSource)) {
                findings.add(new Finding("capabilities-assumed", "warning", subject, "'" + p.name + "' could not"
                        + " answer --about --format=json (" + p.aboutError + "), so Meltano's conventional capabilities"
                        + " for " + p.type.id() + " are assumed: " + (caps.isEmpty() ? "none" : String.join(", ", caps))
                        + ". List its capabilities if they are not these."));
            }
            if (!unknown && p.type == PluginType.EXTRACTORS && incremental(Jsons.readObject(p.metadata))
                    && !caps.contains("state")) {
                findings.add(new Finding("incremental-without-state", "warning", subject, "'" + p.name + "' has"
                        + " INCREMENTAL streams in its metadata but does not declare the 'state' capability: it gets no"
                        + " bookmarks and reads everything on every run. Add 'state' to its capabilities."));
            }
            List<String> sensitive = Jsons.readStrings(p.sensitive);
            Set<String> names = new LinkedHashSet<>();
            settingNames(Jsons.readObject(p.config), "", names);
            JsonNode settings = Jsons.readObject(p.extras).path("settings");
            settings.forEach(s -> {
                if (s.path("name").isTextual()) {
                    names.add(s.get("name").asText());
                }
            });
            for (String n : names) {
                String last1 = n.contains(".") ? n.substring(n.lastIndexOf('.') + 1) : n;
                if (SensitiveNames.looksSensitive(last1) && !sensitive.contains(n)) {
                    findings.add(new Finding("sensitive-not-marked", "warning", subject, "setting '" + n + "' of '"
                            + p.name + "' looks secret but is not sensitive: it is shown in responses and exported as"
                            + " written. Mark it (sensitive: true, or kind: password in meltano.yml)."));
                }
            }
            ObjectNode config = Jsons.readObject(p.config);
            for (String s : sensitive) {
                JsonNode v = config.get(s);
                if (v != null && v.isValueNode() && !v.isNull() && !SensitiveNames.isReference(v.asText())) {
                    findings.add(new Finding("secret-value-in-config", "info", subject, "sensitive setting '" + s
                            + "' of '" + p.name + "' holds a value; prefer a reference such as "
                            + SensitiveNames.reference(p.name, s) + " or ${secret:NAME}."));
                }
            }
        }
        Set<String> withoutTz = new LinkedHashSet<>();
        if (last != null) {
            Jsons.readObject(last.document).path("schedulesWithoutTimezone").forEach(n -> withoutTz.add(n.asText()));
        }
        for (Pipeline p : pipelines) {
            String subject = "pipelines/" + p.name;
            boolean automatic;
            try {
                Interval.Kind k = Interval.parse(p.scheduleInterval).kind();
                automatic = k != Interval.Kind.MANUAL && k != Interval.Kind.ONCE;
            } catch (RuntimeException e) {
                automatic = false;
            }
            if (automatic && withoutTz.contains(p.name) && "UTC".equals(p.scheduleTimezone)) {
                findings.add(new Finding("schedule-without-timezone", "info", subject, "schedule '" + p.name + "' ("
                        + p.scheduleInterval + ") has no timezone and runs in UTC; set schedule.timezone (or timezone:"
                        + " in meltano.yml) if local time is meant."));
            }
            List<String> caps = Jsons.readStrings(p.extractor.capabilities);
            List<String> select = Jsons.readStrings(p.extractor.selectPatterns);
            if (!select.isEmpty() && p.extractor.capabilitiesSource != null && !caps.contains("catalog")
                    && !caps.contains("properties")) {
                findings.add(new Finding("select-without-catalog", "warning", subject, "extractor '" + p.extractor.name
                        + "' of pipeline '" + p.name + "' has select rules but neither the 'catalog' nor the"
                        + " 'properties' capability, so no catalog is passed and the rules are never applied."));
            }
        }
        findings.sort(Comparator.comparing(Finding::code).thenComparing(Finding::subject).thenComparing(Finding::message));
        return new ProjectAssessment(level, environments, last == null ? null : last.environment,
                last == null ? null : last.importedAt, findings, nextStep(level, environments.size(), production));
    }

    /** What reaches the next level from {@code level}, or null at the top. */
    public static String nextStep(String level, int environments, boolean production) {
        return switch (level) {
            case "basic" -> environments == 0
                    ? "Import a meltano.yml (POST /api/v1/projects:import) with at least two environments, for example"
                    + " dev and prod, to reach developing."
                    : "Add a second environment to meltano.yml (environments:, for example dev and prod) and import it"
                    + " again to reach developing.";
            case "developing" -> production
                    ? "Add a third environment (for example staging beside dev and prod) and import again to reach mature."
                    : "Add a production environment (named prod or production)" + (environments >= 3 ? ""
                    : " as a third environment") + " to meltano.yml and import again to reach mature.";
            default -> null;
        };
    }

    private static boolean incremental(ObjectNode metadata) {
        boolean[] found = {false};
        metadata.fields().forEachRemaining(s -> {
            JsonNode m = s.getValue().get("replication-method");
            if (m != null && m.asText().equalsIgnoreCase("INCREMENTAL")) {
                found[0] = true;
            }
        });
        return found[0];
    }

    /** Setting names of a config: top-level keys and dotted paths into nested objects (not into lists). */
    private static void settingNames(ObjectNode config, String prefix, Set<String> out) {
        config.fields().forEachRemaining(f -> {
            String name = prefix + f.getKey();
            out.add(name);
            if (f.getValue() instanceof ObjectNode o) {
                settingNames(o, name + ".", out);
            }
        });
    }
}

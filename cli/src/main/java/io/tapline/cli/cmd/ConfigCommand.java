package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code tapline config <plugin> [list|set|unset|test]}: {@code meltano config} over the plugin's
 * {@code config} ({@code PATCH} with a JSON merge patch, so other settings stay as they are). Secret
 * values come back as {@code ********} and are never shown.
 */
@Command(name = "config", description = "Show or change a plugin's settings, or test its connection (meltano config).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline config tap-csv", "  tapline config tap-csv list",
                "  tapline config tap-csv set files '[{\"entity\": \"people\", \"path\": \"/data/people.csv\"}]'",
                "  tapline config tap-postgres set --sensitive password 's3cret'",
                "  tapline config tap-csv unset start_date", "  tapline config tap-csv test"})
public final class ConfigCommand implements Group, Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PLUGIN", completionCandidates = Names.PluginNames.class, description = "The plugin's name.")
    String plugin;

    @Option(names = "--plugin-type", paramLabel = "TYPE", description = "extractor, loader, ... when the name is"
            + " taken by several types.")
    String pluginType;

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListSettings.class,
                "set", SetSetting.class,
                "unset", Unset.class,
                "test", Test.class);
    }

    /** {@code tapline config PLUGIN}: the config as JSON, as {@code meltano config PLUGIN} prints it. */
    @Override
    public Integer call() {
        JsonNode config = Session.current().api().get(path()).ok().json().path("config");
        Term.out().println(Json.pretty(config.isMissingNode() ? Json.object() : config));
        return ExitCodes.OK;
    }

    String path() {
        return Plugins.path(pluginType, plugin);
    }

    @Command(name = "list", description = "Each setting (dotted for nested ones) with its value; secrets read"
            + " ******** (meltano config list).", footerHeading = "%nExample:%n",
            footer = "  tapline config tap-csv list")
    static final class ListSettings implements Callable<Integer> {

        @ParentCommand
        ConfigCommand parent;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            JsonNode p = Session.current().api().get(parent.path()).ok().json();
            ArrayNode rows = JsonNodeFactory.instance.arrayNode();
            flatten("", p.path("config"), rows, p.path("sensitive"));
            Output.print(format, rows, out -> {
                Table t = new Table("SETTING", "VALUE", "");
                for (JsonNode r : rows) {
                    t.row(r.path("name").asText(), Output.cell(r.get("value")),
                            r.path("sensitive").asBoolean() ? Term.dim("(sensitive)") : "");
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }

        private static void flatten(String prefix, JsonNode node, ArrayNode rows, JsonNode sensitive) {
            if (node.isObject() && !node.isEmpty()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), rows, sensitive);
                }
                return;
            }
            if (prefix.isEmpty()) {
                return;
            }
            boolean secret = false;
            for (JsonNode s : sensitive) {
                secret |= s.asText().equals(prefix);
            }
            rows.addObject().put("name", prefix).put("sensitive", secret).set("value", node);
        }
    }

    @Command(name = "set", description = "Set a setting (admin): NAME... is its path (several words for a nested one,"
            + " as meltano config set takes them); VALUE is parsed as JSON when it is JSON, else taken as text.",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline config tap-csv set start_date 2024-01-01",
                    "  tapline config target-postgres set ssl mode require",
                    "  tapline config tap-postgres set --sensitive password 's3cret'"})
    static final class SetSetting implements Callable<Integer> {

        @ParentCommand
        ConfigCommand parent;

        @Option(names = "--sensitive", description = "Store it as a secret (write-only, encrypted at rest, masked).")
        boolean sensitive;

        @Parameters(arity = "1..*", paramLabel = "NAME... VALUE")
        List<String> words;

        @Override
        public Integer call() {
            if (words.size() < 2) {
                throw CliException.usage("Give the setting's name and its value: tapline config PLUGIN set NAME VALUE.");
            }
            List<String> name = words.subList(0, words.size() - 1);
            String value = words.get(words.size() - 1);
            JsonNode v = parse(value);
            ObjectNode patch = Json.object();
            nested(patch.putObject("config"), name, v);
            Response current = null;
            if (sensitive) {
                current = Session.current().api().get(parent.path()).ok();
                ArrayNode list = JsonNodeFactory.instance.arrayNode();
                String dotted = String.join(".", name);
                boolean present = false;
                for (JsonNode s : current.json().path("sensitive")) {
                    list.add(s);
                    present |= s.asText().equals(dotted);
                }
                if (!present) {
                    list.add(dotted);
                }
                patch.set("sensitive", list);
            }
            ConfigCommand.patch(parent.path(), patch, current == null ? null : current.header("ETag"));
            Term.err().println("Set '" + String.join(".", name) + "' of " + parent.plugin
                    + (sensitive ? " (sensitive)." : "."));
            return ExitCodes.OK;
        }

        private static JsonNode parse(String value) {
            try {
                return Json.mapper().readTree(value);
            } catch (java.io.IOException | RuntimeException e) {
                return JsonNodeFactory.instance.textNode(value);
            }
        }
    }

    @Command(name = "unset", description = "Remove a setting (admin); NAME... as for set.",
            footerHeading = "%nExample:%n", footer = "  tapline config tap-csv unset start_date")
    static final class Unset implements Callable<Integer> {

        @ParentCommand
        ConfigCommand parent;

        @Parameters(arity = "1..*", paramLabel = "NAME")
        List<String> name;

        @Override
        public Integer call() {
            ObjectNode patch = Json.object();
            nested(patch.putObject("config"), name, JsonNodeFactory.instance.nullNode());
            ConfigCommand.patch(parent.path(), patch, null);
            Term.err().println("Unset '" + String.join(".", name) + "' of " + parent.plugin + ".");
            return ExitCodes.OK;
        }
    }

    @Command(name = "test", description = "Test the connection (operator): an extractor passes at its first RECORD,"
            + " a loader when it starts; exit 1 when it fails (meltano config test).",
            footerHeading = "%nExample:%n", footer = "  tapline config tap-csv test")
    static final class Test implements Callable<Integer> {

        @ParentCommand
        ConfigCommand parent;

        @Option(names = "--timeout-seconds", paramLabel = "N", description = "Shorter than the service's limit.")
        Integer timeout;

        @Override
        public Integer call() {
            JsonNode r = Session.current().api().post(parent.path() + ":test").query("timeoutSeconds", timeout)
                    .json("").ok().json();
            if (r.path("ok").asBoolean()) {
                Term.out().println(Term.green("Plugin configuration is valid"));
                return ExitCodes.OK;
            }
            Term.out().println(Term.red("Plugin configuration is invalid") + ": " + r.path("message").asText());
            return ExitCodes.FAILED;
        }
    }

    static void nested(ObjectNode into, List<String> path, JsonNode value) {
        if (path.isEmpty()) {
            throw CliException.usage("A setting name is required.");
        }
        ObjectNode o = into;
        for (int i = 0; i < path.size() - 1; i++) {
            o = o.putObject(path.get(i));
        }
        o.set(path.get(path.size() - 1), value);
    }

    static void patch(String path, ObjectNode patch, String ifMatch) {
        Session.current().api().call("PATCH", path).header("If-Match", ifMatch)
                .body("application/merge-patch+json", Json.compact(patch).getBytes(StandardCharsets.UTF_8)).ok();
    }
}

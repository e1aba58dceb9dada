package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.Map;

/**
 * {@code tapline plugins list|show|add|remove}: {@code /api/v1/plugins}, Meltano's {@code meltano add}
 * and {@code meltano remove}; the type is Meltano's singular ({@code extractor}) or the API's plural.
 */
@Command(name = "plugins", description = "List, show, add and remove plugins (meltano add / remove).",
        footerHeading = "%nExamples:%n",
        footer = {"  tapline plugins list --type extractor",
                "  tapline plugins add extractor tap-csv --pip-url git+https://github.com/MeltanoLabs/tap-csv.git@v1.2.0"
                        + " --capabilities catalog,discover,state"})
public final class PluginsCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListPlugins.class,
                "show", Show.class,
                "add", Add.class,
                "remove", Remove.class);
    }

    @Command(name = "list", description = "Every plugin (or those of one type): executable, variant, pip_url,"
            + " install state on the replica that answered, warnings.", footerHeading = "%nExample:%n",
            footer = "  tapline plugins list --type loader --format json")
    static final class ListPlugins implements Callable<Integer> {

        @Option(names = "--type", paramLabel = "TYPE",
                description = "extractor, loader, mapper, transformer or" + " utility.")
        String type;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            Api api = Session.current().api();
            ArrayNode items = type == null ? Plugins.all()
                    : Pages.collect(Pages.of(c -> api.get("/api/v1/plugins/" + Plugins.type(type))), 0);
            Output.print(format, items, out -> {
                Table t = new Table("TYPE", "NAME", "EXECUTABLE", "VARIANT", "PIP_URL", "INSTALLED", "WARNINGS");
                for (JsonNode p : items) {
                    JsonNode install = p.path("install");
                    t.row(Plugins.singular(p.path("type").asText()), p.path("name").asText(), p.path("executable").asText(),
                            Output.cell(p.get("variant")), Output.cell(p.get("pipUrl")),
                            install.isObject() ? (install.path("installed").asBoolean() ? "yes "
                                    + install.path("version").asText("") : Term.yellow("no")) : "-",
                            p.path("warnings").isEmpty() ? "" : Term.yellow(p.path("warnings").size() + ""));
                }
                t.print(out);
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", description = "One plugin; secret values read ********.", footerHeading = "%nExample:%n",
            footer = "  tapline plugins show extractor tap-csv")
    static final class Show implements Callable<Integer> {

        @Parameters(arity = "1..2", paramLabel = "[TYPE] NAME", completionCandidates = Names.PluginNames.class,
                description = "The type is needed only when" + " the name is taken by several types.")
        List<String> typeAndName;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
                description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            String type = typeAndName.size() == 2 ? typeAndName.get(0) : null;
            String name = typeAndName.get(typeAndName.size() - 1);
            JsonNode p = Session.current().api().get(Plugins.path(type, name)).ok().json();
            Output.print(format, p, out -> {
                Table t = new Table("FIELD", "VALUE");
                p.fields().forEachRemaining(e -> t.row(e.getKey(), Output.cell(e.getValue())));
                t.print(out);
                for (JsonNode w : p.path("warnings")) {
                    out.println(Term.yellow("Warning: ") + w.asText());
                }
            });
            return ExitCodes.OK;
        }
    }

    @Command(name = "add", description = "Add a plugin (admin), as meltano add does: the executable defaults to the"
            + " name; a pip_url is installed by the service on first use (or by tapline install).",
            footerHeading = "%nExamples:%n",
            footer = {"  tapline plugins add extractor tap-csv --variant meltanolabs"
                    + " --pip-url git+https://github.com/MeltanoLabs/tap-csv.git@v1.2.0 --capabilities catalog,discover,state",
                    "  tapline plugins add loader target-jsonl --executable /opt/bin/target-jsonl"
                            + " --config '{\"destination_path\": \"/tmp/out\"}'",
                    "  tapline plugins add extractor tap-x --file tap-x.json"})
    static final class Add implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "TYPE",
                description = "extractor, loader, mapper, transformer or" + " utility.")
        String type;

        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Option(names = "--file", paramLabel = "FILE",
                description = "The plugin as JSON (the API's body); the" + " options below override its fields.")
        Path file;

        @Option(names = "--executable", paramLabel = "COMMAND")
        String executable;

        @Option(names = "--pip-url", paramLabel = "SPEC")
        String pipUrl;

        @Option(names = "--variant", paramLabel = "VARIANT")
        String variant;

        @Option(names = "--namespace", paramLabel = "NAMESPACE")
        String namespace;

        @Option(names = "--inherit-from", paramLabel = "PLUGIN", completionCandidates = Names.PluginNames.class)
        String inheritFrom;

        @Option(names = "--capabilities", split = ",", paramLabel = "CAPABILITY")
        List<String> capabilities;

        @Option(names = "--config", paramLabel = "JSON", description = "The config, a JSON object.")
        String config;

        @Option(names = "--sensitive", split = ",", paramLabel = "SETTING")
        List<String> sensitive;

        @Override
        public Integer call() {
            String t = Plugins.type(type);
            ObjectNode body = file == null ? Json.object() : PipelinesCommand.object(Inputs.read(file), "--file " + file);
            body.put("name", name);
            put(body, "executable", executable);
            put(body, "pipUrl", pipUrl);
            put(body, "variant", variant);
            put(body, "namespace", namespace);
            put(body, "inheritFrom", inheritFrom);
            if (!body.hasNonNull("executable") && !body.hasNonNull("inheritFrom")) {
                body.put("executable", name);
            }
            if (capabilities != null) {
                body.set("capabilities", Json.mapper().valueToTree(capabilities));
            }
            if (config != null) {
                body.set("config", PipelinesCommand.object(config, "--config"));
            }
            if (sensitive != null) {
                body.set("sensitive", Json.mapper().valueToTree(sensitive));
            }
            JsonNode p = Session.current().api().post("/api/v1/plugins/" + t).json(Json.compact(body)).ok().json();
            Term.err().println("Added " + Plugins.singular(t) + " '" + name + "'.");
            for (JsonNode w : p.path("warnings")) {
                Term.err().println(Term.yellow("Warning: ") + w.asText());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "remove", description = "Remove a plugin (admin; refused while pipelines use it), as meltano"
            + " remove does.", footerHeading = "%nExample:%n", footer = "  tapline plugins remove --force extractor tap-csv")
    static final class Remove implements Callable<Integer> {

        @Parameters(arity = "1..2", paramLabel = "[TYPE] NAME", completionCandidates = Names.PluginNames.class)
        List<String> typeAndName;

        @Option(names = "--force", description = "Do not ask.")
        boolean force;

        @Override
        public Integer call() {
            String type = typeAndName.size() == 2 ? typeAndName.get(0) : null;
            String name = typeAndName.get(typeAndName.size() - 1);
            String path = Plugins.path(type, name);
            Confirm.ask("This will remove plugin '" + name + "'. Continue?", force);
            Session.current().api().call("DELETE", path).ok();
            Term.err().println("Removed plugin '" + name + "'.");
            return ExitCodes.OK;
        }
    }

    private static void put(ObjectNode o, String field, String value) {
        if (value != null) {
            o.put(field, value);
        }
    }
}

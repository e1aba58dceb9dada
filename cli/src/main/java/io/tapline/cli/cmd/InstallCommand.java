package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code tapline install [<plugin>...]}: {@code meltano install} on the service (admin): installs
 * each named plugin's {@code pip_url} (all plugins that have one when none is named) into its
 * virtual environment on the replica that answers ({@code POST .../{name}:install}), waits for each
 * install and prints its version, or pip's last error lines; exit 1 when one failed.
 */
@Command(name = "install", description = "Install plugins' pip_url on the service, all of them when none is named"
        + " (meltano install).", footerHeading = "%nExamples:%n",
        footer = {"  tapline install", "  tapline install tap-csv target-jsonl"})
public final class InstallCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", paramLabel = "PLUGIN", completionCandidates = Names.PluginNames.class)
    List<String> names;

    @Option(names = "--plugin-type", paramLabel = "TYPE", description = "Only plugins of this type.")
    String pluginType;

    @Override
    public Integer call() {
        List<String[]> todo = new ArrayList<>();
        String only = pluginType == null ? null : Plugins.type(pluginType);
        for (JsonNode p : Plugins.all()) {
            String type = p.path("type").asText();
            String name = p.path("name").asText();
            boolean named = names == null || names.contains(name);
            if (named && (only == null || only.equals(type)) && (names != null || p.hasNonNull("pipUrl"))) {
                todo.add(new String[] {type, name});
            }
        }
        if (names != null) {
            for (String n : names) {
                if (todo.stream().noneMatch(t -> t[1].equals(n))) {
                    throw new CliException(ExitCodes.NOT_FOUND, "There is no plugin '" + n + "'"
                            + (only == null ? "" : " of type " + Plugins.singular(only))
                            + "; tapline plugins list shows them.");
                }
            }
        }
        if (todo.isEmpty()) {
            Term.err().println("No plugin has a pip_url; nothing to install.");
            return ExitCodes.OK;
        }
        int failed = 0;
        for (String[] t : todo) {
            String path = "/api/v1/plugins/" + t[0] + "/" + io.tapline.cli.http.Paths.seg(t[1]);
            Term.err().print("Installing " + Plugins.singular(t[0]) + " '" + t[1] + "'... ");
            JsonNode started = Session.current().api().post(path + ":install").json("").ok().json();
            JsonNode end = await(path + "/installs/" + started.path("id").asText(), started);
            if ("SUCCEEDED".equals(end.path("status").asText())) {
                Term.err().println(Term.green("done") + (end.hasNonNull("version") ? " (version "
                        + end.get("version").asText() + ")" : "") + ".");
            } else {
                failed++;
                Term.err().println(Term.red("failed") + ": " + end.path("reason").asText("see the install log") + "");
            }
        }
        return failed == 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static JsonNode await(String path, JsonNode install) {
        long wait = 200;
        while ("RUNNING".equals(install.path("status").asText())) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(ExitCodes.FAILED, "Interrupted; the install goes on on the service.");
            }
            wait = Math.min(2000, wait * 2);
            install = Session.current().api().get(path).ok().json();
        }
        return install;
    }
}

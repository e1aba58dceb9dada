package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.out.Format;
import io.tapline.cli.out.Output;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code tapline project import|export|assess}: a Meltano project's {@code meltano.yml} in and out
 * of the service ({@code /api/v1/projects}, docs/projects.md).
 */
@Command(name = "project", description = "Import a meltano.yml, export the service's plugins and pipelines as one,"
        + " or assess them.", footerHeading = "%nExamples:%n",
        footer = {"  tapline project import meltano.yml --dry-run", "  tapline project export > meltano.yml",
                "  tapline project assess"})
public final class ProjectCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "import", Import.class,
                "export", Export.class,
                "assess", Assess.class);
    }

    @Command(name = "import", description = "Create or update plugins, and a pipeline per schedule and job, from a"
            + " meltano.yml (admin); --dry-run shows the plan and writes nothing.", footerHeading = "%nExamples:%n",
            footer = {"  tapline project import meltano.yml --dry-run --environment prod",
                    "  tapline project import meltano.yml --on-conflict merge"})
    static final class Import implements Callable<Integer> {

        @Parameters(paramLabel = "MELTANO_YML", description = "The file ('-' reads stdin).")
        Path file;

        @Option(names = "--dry-run", description = "Show what would change; write nothing.")
        boolean dryRun;

        @Option(names = "--environment", paramLabel = "ENV", description = "Default: the document's default_environment.")
        String environment;

        @Option(names = "--on-conflict", paramLabel = "MODE", description = "replace, merge or fail. Not given: replace,"
                + " but refused (409, nothing written) when a stored secret or capability would be dropped.")
        String onConflict;

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            byte[] yaml = Inputs.bytes(file);
            JsonNode plan = Session.current().api().post("/api/v1/projects:import").query("dryRun", dryRun ? "true" : null)
                    .query("environment", environment).query("onConflict", onConflict)
                    .body("application/yaml", yaml).ok().json();
            Output.print(format, plan, out -> {
                Table t = new Table("TYPE", "NAME", "ACTION", "CHANGES", "FROM");
                for (String part : new String[] {"plugins", "pipelines"}) {
                    for (JsonNode i : plan.path(part)) {
                        t.row(i.path("type").asText(), i.path("name").asText(), action(i.path("action").asText()),
                                DiscoverCommand.join(i.path("changes")), i.path("path").asText());
                    }
                }
                t.print(out);
                for (JsonNode u : plan.path("unsupported")) {
                    out.println(Term.yellow("Unsupported: ") + u.path("path").asText() + ": " + u.path("reason").asText());
                }
                JsonNode s = plan.path("summary");
                out.println((plan.path("dryRun").asBoolean() ? "Plan (nothing written)" : "Imported") + " for environment "
                        + plan.path("environment").asText() + ": " + s.path("create").asInt() + " to create, "
                        + s.path("update").asInt() + " to update, " + s.path("unchanged").asInt() + " unchanged, "
                        + s.path("unsupported").asInt() + " unsupported.");
            });
            return ExitCodes.OK;
        }

        private static String action(String a) {
            return switch (a) {
                case "create" -> Term.green(a);
                case "update" -> Term.yellow(a);
                default -> a;
            };
        }
    }

    @Command(name = "export", description = "The service's plugins and pipelines as a meltano.yml that Meltano 4.2.2"
            + " runs as it is.", footerHeading = "%nExample:%n", footer = "  tapline project export -o meltano.yml")
    static final class Export implements Callable<Integer> {

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to this file instead of stdout.")
        Path output;

        @Override
        public Integer call() throws IOException {
            byte[] yaml = Session.current().api().get("/api/v1/projects/meltano.yml").header("Accept", "application/yaml")
                    .ok().body();
            if (output == null) {
                Term.out().write(yaml);
            } else {
                Files.write(output, yaml);
                Term.err().println("Wrote " + output + ".");
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "assess", description = "How far the project is from running well on Tapline: a level (basic,"
            + " developing, mature), findings and the next step.", footerHeading = "%nExample:%n",
            footer = "  tapline project assess --format json")
    static final class Assess implements Callable<Integer> {

        @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT", description = "table, json or yaml.")
        Format format;

        @Override
        public Integer call() {
            JsonNode a = Session.current().api().get("/api/v1/projects/assessment").ok().json();
            Output.print(format, a, out -> {
                out.println("Level: " + Term.bold(a.path("level").asText()));
                Table t = new Table("SEVERITY", "CODE", "SUBJECT", "MESSAGE");
                for (JsonNode f : a.path("findings")) {
                    String sev = f.path("severity").asText();
                    t.row(sev.equals("warning") ? Term.yellow(sev) : sev, f.path("code").asText(),
                            f.path("subject").asText(), f.path("message").asText());
                }
                if (!t.isEmpty()) {
                    t.print(out);
                }
                if (a.hasNonNull("nextStep")) {
                    out.println("Next step: " + a.get("nextStep").asText());
                }
            });
            return ExitCodes.OK;
        }
    }
}

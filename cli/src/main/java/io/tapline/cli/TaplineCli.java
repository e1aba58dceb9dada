package io.tapline.cli;

import io.tapline.cli.cmd.Group;
import io.tapline.cli.http.Api;
import io.tapline.cli.out.Term;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Map;
import java.util.Set;

/**
 * {@code tapline}: the command line client of a Tapline service (docs/cli.md). Meltano's verbs
 * ({@code run}, {@code state}, {@code schedule}, {@code config}, {@code select}, {@code install}, ...)
 * over the REST API ({@code /api/v1}); a plain JVM program that starts in a fraction of a second.
 *
 * <p>Exit codes: {@link ExitCodes}. Errors are one line on stderr, never a stack trace
 * ({@code TAPLINE_DEBUG=1} adds it for an unexpected error).
 */
@Command(name = "tapline", usageHelpAutoWidth = false,
        description = "Runs and administers Tapline pipelines from a terminal, with Meltano's verbs.",
        synopsisSubcommandLabel = "COMMAND",
        footerHeading = "%nConnecting:%n",
        footer = {"  --url / TAPLINE_URL (default http://localhost:8080), --token / TAPLINE_TOKEN,",
                "  or a profile (tapline login; --profile / TAPLINE_PROFILE). A service in dev",
                "  mode is found without a token.", "",
                "Exit codes:", "  0 ok, 1 a run failed, 2 usage, 3 not found, 4 conflict or refused,",
                "  5 cannot reach the service, 6 authentication or role.", "",
                "Examples:", "  tapline run demo", "  tapline state get dev:tap-demo-to-target-demo",
                "", "Every command has --help; docs/cli.md describes them all."})
public final class TaplineCli implements Runnable {

    @Spec
    CommandSpec spec;

    @Option(names = "--url", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = "The service's base URL (default: TAPLINE_URL, the profile's, http://localhost:8080).")
    void url(String url) {
        Session.current().urlOption = url;
    }

    @Option(names = "--token", paramLabel = "TOKEN", scope = ScopeType.INHERIT,
            description = "The bearer token (default: TAPLINE_TOKEN, the profile's, the dev token).")
    void token(String token) {
        Session.current().tokenOption = token;
    }

    @Option(names = "--profile", paramLabel = "NAME", scope = ScopeType.INHERIT,
            description = "The profile to use (default: TAPLINE_PROFILE, the current one).")
    void profile(String profile) {
        Session.current().profileOption = profile;
    }

    @Option(names = "--no-color", scope = ScopeType.INHERIT, description = "No colours, even on a terminal.")
    void noColor(boolean noColor) {
        if (noColor) {
            Term.disableColor();
        }
    }

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, description = "Show this help.")
    boolean help;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        int code;
        try {
            code = execute(args);
        } catch (RuntimeException e) {
            code = failure(e);
        } finally {
            Term.out().flush();
            Term.err().flush();
            // after the output: the exit would otherwise wait up to 300 ms for the client's selector thread
            Session.current().close();
        }
        System.exit(code);
    }

    /** Parses and runs {@code args}; returns the exit code. */
    public static int execute(String[] args) {
        if (args.length == 1 && args[0].equals(Verbs.TRAIN)) {
            try {
                return Training.run();
            } catch (java.io.IOException e) {
                return ExitCodes.FAILED;
            }
        }
        return commandLine(wholeTree(args) ? null : Set.of(args)).execute(args);
    }

    /**
     * The command tree. Of each command's subcommands only those named in {@code words} are built
     * (all of them when none is named, and everything when {@code words} is null): building a
     * command reads its annotations, most of a short command's start-up time.
     */
    public static CommandLine commandLine(Set<String> words) {
        // picocli looks up converters of java.sql and java.time types by reflection for every command
        // it builds; no option here has such a type.
        System.setProperty("picocli.converters.excludes", "java\\.(sql|time)\\..*");
        CommandLine cl = new CommandLine(new TaplineCli());
        addSubcommands(cl, Verbs.ALL, words);
        PrintWriter out = new PrintWriter(Term.out(), true);
        PrintWriter err = new PrintWriter(Term.err(), true);
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(Term.color() ? CommandLine.Help.Ansi.ON
                : CommandLine.Help.Ansi.OFF));
        String columns = System.getenv("COLUMNS");
        if (columns != null && columns.matches("\\d{2,3}")) {
            cl.setUsageHelpWidth(Math.max(55, Integer.parseInt(columns)));
        }
        cl.setParameterExceptionHandler(TaplineCli::usageError);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> failure(e));
        return cl;
    }

    private static void addSubcommands(CommandLine parent, Map<String, Class<?>> subcommands, Set<String> words) {
        boolean anyNamed = words != null && subcommands.keySet().stream().anyMatch(words::contains);
        for (Map.Entry<String, Class<?>> e : subcommands.entrySet()) {
            if (anyNamed && !words.contains(e.getKey())) {
                continue;
            }
            CommandLine sub = new CommandLine(e.getValue());
            if (sub.getCommand() instanceof Group g) {
                addSubcommands(sub, g.subcommands(), words);
            }
            parent.addSubcommand(e.getKey(), sub);
        }
    }

    /** Whether the arguments need every command: shell completion, and its script. */
    static boolean wholeTree(String[] args) {
        for (String a : args) {
            if (a.equals("completion")) {
                return true;
            }
        }
        return false;
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String msg = e.getMessage();
        Term.err().println("tapline: " + (msg.endsWith(".") ? msg : msg + ".") + " See '"
                + cl.getCommandSpec().qualifiedName() + " --help'.");
        return ExitCodes.USAGE;
    }

    static int failure(Exception e) {
        if (e instanceof CliException c) {
            Term.err().println("tapline: " + Term.printable(c.getMessage()));
            return c.exitCode();
        }
        Term.err().println("tapline: unexpected error (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "). Please report it with the command you ran"
                + (debug() ? "." : "; TAPLINE_DEBUG=1 shows the stack trace."));
        if (debug()) {
            e.printStackTrace(Term.err());
        }
        return ExitCodes.FAILED;
    }

    private static boolean debug() {
        String d = System.getenv("TAPLINE_DEBUG");
        return d != null && !d.isEmpty() && !d.equals("0");
    }

    /** {@code tapline <version>}, for User-Agent and {@code tapline version}. */
    static String version() {
        return Api.version();
    }
}

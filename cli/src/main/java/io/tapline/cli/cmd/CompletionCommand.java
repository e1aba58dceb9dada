package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.out.Term;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * {@code tapline completion bash|zsh}: the shell completion script that picocli's
 * {@link AutoComplete} makes from the command tree (one script; zsh runs it through
 * {@code bashcompinit}), with the names of pipelines, state IDs, plugins and runs asked of the
 * service while completing ({@code tapline __complete}, see {@link Names}).
 */
@Command(name = "completion", description = "Print the shell completion script for bash or zsh.",
        footerHeading = "%nExamples:%n",
        footer = {"  source <(tapline completion bash)          # in ~/.bashrc",
                "  source <(tapline completion zsh)           # in ~/.zshrc"})
public final class CompletionCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
    String shell;

    @Override
    public Integer call() {
        if (!shell.equals("bash") && !shell.equals("zsh")) {
            throw CliException.usage("SHELL must be bash or zsh, not '" + shell + "'.");
        }
        CommandLine root = spec.root().commandLine();
        String script = AutoComplete.bash("tapline", root);
        script = script.replaceAll("\\(\"" + Names.MARKER + "(\\w+)\"\\)", "(\\$(_tapline_names $1))");
        StringBuilder b = new StringBuilder(script.length() + 512);
        b.append(script, 0, script.indexOf("\n# CompWordsContainsArray"));
        b.append("\n# Names of pipelines, state IDs, plugins and runs, asked of the service (empty when it does"
                + " not answer).\nfunction _tapline_names() {\n  command tapline __complete \"$1\" 2>/dev/null\n}\n");
        b.append(script.substring(script.indexOf("\n# CompWordsContainsArray")));
        if (shell.equals("zsh")) {
            b.insert(0, "#compdef tapline\n# zsh: this is the bash script, run through bashcompinit.\n");
        }
        Term.out().print(b);
        return ExitCodes.OK;
    }
}

package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.out.Term;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Meltano's questions before an overwrite ({@code This will overwrite ... Continue?}). Asked only
 * when stdin is a terminal; without one, and without {@code --force}, nothing is changed and the
 * command exits 4, because a script that never answers must not hang or guess.
 */
public final class Confirm {

    private Confirm() {
    }

    /**
     * Returns when the user agrees or {@code force} is set.
     *
     * @throws CliException (exit 4) when the answer is not yes, or there is no terminal to ask
     */
    public static void ask(String question, boolean force) {
        if (force) {
            return;
        }
        if (!Term.stdinTty()) {
            throw new CliException(ExitCodes.CONFLICT, "Nothing was changed: '" + question + "' needs an answer"
                    + " and stdin is not a terminal; add --force to go ahead without the question.");
        }
        if (!yes(question)) {
            throw new CliException(ExitCodes.CONFLICT, "Aborted: nothing was changed.");
        }
    }

    /** Asks a yes/no question on the terminal (default no). */
    public static boolean yes(String question) {
        Term.err().print(question + " [y/N]: ");
        Term.err().flush();
        try {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            String a = line == null ? "" : line.trim().toLowerCase(Locale.ROOT);
            return a.equals("y") || a.equals("yes");
        } catch (IOException e) {
            return false;
        }
    }
}

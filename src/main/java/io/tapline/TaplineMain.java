package io.tapline;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.tapline.common.security.TokenCommand;
import io.tapline.run.runner.RunnerCommand;

import java.util.Arrays;

/**
 * Entry point of the packaged service. Without arguments (or with arguments that name no
 * sub-command) it runs the service. The first argument may name a sub-command, which runs
 * instead of the service:
 * <ul>
 *   <li>{@code token}: prints a token for local use ({@link TokenCommand}); needs no database.</li>
 *   <li>{@code run <run-id> [--job <job-name>] [--prepared <file>]}: runner mode, executes that one
 *       run and exits with its result ({@link RunnerCommand}); no HTTP server, scheduler or
 *       dispatcher.</li>
 * </ul>
 */
@QuarkusMain
public class TaplineMain {

    /** Dispatches on the first argument; see the class comment. */
    public static void main(String... args) {
        if (args.length > 0 && TokenCommand.NAME.equals(args[0])) {
            System.exit(TokenCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
        }
        if (args.length > 0 && RunnerCommand.NAME.equals(args[0])) {
            RunnerCommand.configure();
            Quarkus.run(RunnerCommand.class, Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Quarkus.run(args);
    }
}

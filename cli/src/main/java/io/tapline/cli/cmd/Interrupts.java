package io.tapline.cli.cmd;

import io.tapline.cli.Session;
import io.tapline.cli.http.Paths;
import io.tapline.cli.http.Problems;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Term;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Ctrl-C while a run is followed: on a terminal, pauses the log and asks "Cancel run ...?"; yes
 * sends {@code POST /api/v1/runs/{id}/cancel} and keeps following until the run has ended (the
 * summary then says CANCELLED, exit 1); no goes on. A second Ctrl-C while the question is open,
 * or any Ctrl-C without a terminal to ask on, leaves at once (exit 130) and the run goes on.
 */
final class Interrupts implements AutoCloseable {

    private static final int EXIT_INTERRUPTED = 130;
    private final Signal signal = new Signal("INT");
    private final SignalHandler previous;

    private Interrupts(String runId, ReentrantLock output) {
        ReentrantLock asking = new ReentrantLock();
        previous = Signal.handle(signal, s -> {
            if (!Term.stdinTty() || !asking.tryLock()) {
                leave(runId);
                return;
            }
            output.lock();
            try {
                Term.out().flush();
                Term.err().println();
                if (Confirm.yes("Cancel run " + runId + "?")) {
                    Response r = Session.current().api().post("/api/v1/runs/" + Paths.seg(runId) + "/cancel").send();
                    Term.err().println(r.ok() ? "Cancel requested; waiting for the run to end."
                            : "tapline: the cancel was refused: " + Problems.of(r).getMessage());
                } else {
                    Term.err().println("The run goes on.");
                }
            } catch (RuntimeException e) {
                Term.err().println("tapline: " + e.getMessage());
            } finally {
                output.unlock();
                asking.unlock();
            }
        });
    }

    /** Installs the handler until {@link #close()}. */
    static Interrupts askToCancel(String runId, ReentrantLock output) {
        return new Interrupts(runId, output);
    }

    private static void leave(String runId) {
        Term.out().flush();
        Term.err().println();
        Term.err().println("tapline: stopped following; the run goes on (tapline runs logs --follow " + runId + ").");
        Term.err().flush();
        Runtime.getRuntime().halt(EXIT_INTERRUPTED);
    }

    @Override
    public void close() {
        Signal.handle(signal, previous);
    }
}

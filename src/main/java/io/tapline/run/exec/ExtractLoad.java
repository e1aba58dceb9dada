package io.tapline.run.exec;

import io.tapline.common.config.TaplineConfig;
import io.tapline.connector.ConnectorProcess;
import io.tapline.connector.ProcessSpec;
import io.tapline.connector.Relay;
import io.tapline.connector.RelayFailure;
import io.tapline.connector.RelayResult;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunFailure;
import io.tapline.invocation.RunPlan;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The extract-load step of the {@code singer} executor: starts the target, the mappers and the tap
 * (each consumer before its producer), relays the tap's messages to the first consumer, pumps
 * between mappers, reads the target's state lines into the checkpointer (persisted by
 * {@link RunStateWriter} at every persist interval under CHECKPOINT), and watches them all with
 * {@link ProcessWatch} until the target has ended.
 */
@ApplicationScoped
public class ExtractLoad {

    /**
     * What the step observed.
     *
     * @param facts the facts for {@link OutcomeClassifier#extractLoad}
     * @param exitCodes exit code per process prefix, in pipeline order
     * @param checkpointer the target's state lines
     * @param relay the relay (for its counts)
     */
    record Result(OutcomeClassifier.ExtractLoad facts, Map<String, Integer> exitCodes, StateCheckpointer checkpointer,
                  Relay relay) {
    }

    private final TaplineConfig config;
    private final Clock clock;
    private final ProcessWatch watch;
    private final RunStateWriter writer;

    private final io.tapline.common.security.RunAsUser runAs;

    public ExtractLoad(TaplineConfig config, Clock clock, ProcessWatch watch, RunStateWriter writer,
                       io.tapline.common.security.RunAsUser runAs) {
        this.runAs = runAs;
        this.config = config;
        this.clock = clock;
        this.watch = watch;
        this.writer = writer;
    }

    /**
     * Runs the step on the calling thread.
     *
     * @param tapCommand the tap's command line (config, catalog and state files included)
     * @throws RunFailure when a process cannot be started (the ones started are stopped by the caller)
     */
    Result run(RunPlan plan, ActiveRun ctx, RunDirectory dir, PreparedRun prepared, List<String> tapCommand)
            throws IOException, InterruptedException {
        ConnectorProcess target = start(ctx, "loader", command(plan.loader(),
                dir.write("loader.config.json", io.tapline.common.json.Jsons.write(prepared.loader()))), dir, prepared,
                plan.loader().name());
        List<ConnectorProcess> mappers = new ArrayList<>();
        for (int i = 0; i < plan.mappers().size(); i++) {
            RunPlan.Component m = plan.mappers().get(i);
            mappers.add(start(ctx, "mapper:" + m.name(), command(m, dir.write("mapper-" + i + ".config.json",
                    io.tapline.common.json.Jsons.write(prepared.mappers().get(i)))), dir, prepared, m.name()));
        }
        ConnectorProcess tap = start(ctx, "extractor", tapCommand, dir, prepared, plan.extractor().name());

        StateCheckpointer checkpointer = new StateCheckpointer(plan.completeWrites());
        ctx.checkpointer = checkpointer;
        Relay relay = new Relay((int) Math.min(config.runner().maxLineLength(), Relay.MAX_LINE_LENGTH_LIMIT));
        ctx.relay = relay;

        OutputStream firstIn = mappers.isEmpty() ? target.stdin() : mappers.get(0).stdin();
        RelayResult[] relayResult = new RelayResult[1];
        Thread relayThread = RunThreads.start("relay-" + plan.runId(), () -> {
            try {
                relayResult[0] = relay.relay(tap.stdout(), firstIn);
            } finally {
                RunThreads.closeQuietly(firstIn);
            }
        });
        List<Thread> pumps = new ArrayList<>();
        for (int i = 0; i < mappers.size(); i++) {
            InputStream from = mappers.get(i).stdout();
            OutputStream to = i + 1 < mappers.size() ? mappers.get(i + 1).stdin() : target.stdin();
            pumps.add(RunThreads.start("mapper-pump-" + i, () -> RunThreads.pump(from, to)));
        }
        StateLineReader reader = new StateLineReader(checkpointer, ctx.log, config.runner().maxLineLength());
        Thread stateReader = RunThreads.start("state-reader-" + plan.runId(), () -> reader.read(target.stdout()));

        // Watch: persist state (CHECKPOINT), stop the tap on a relay failure, until the target has ended.
        Instant[] nextPersist = {clock.instant().plus(config.runner().statePersistInterval())};
        boolean[] relayFailureHandled = {false};
        watch.watch(ctx, new ProcessWatch.Step() {
            @Override
            public boolean awaitDone(java.time.Duration poll) {
                // Once the target exited, wait for its last state lines rather than looping until they are read.
                return RunThreads.waitFor(target, poll) && RunThreads.ended(stateReader, poll);
            }

            @Override
            public void tick(boolean done) {
                if (!plan.onSuccess() && (done || clock.instant().isAfter(nextPersist[0]))) {
                    writer.persist(plan, ctx, checkpointer);
                    nextPersist[0] = clock.instant().plus(config.runner().statePersistInterval());
                }
                if (!done && !relayFailureHandled[0] && !relayThread.isAlive() && relayResult[0] != null
                        && relayResult[0].failure().isPresent()) {
                    relayFailureHandled[0] = true;
                    ctx.log.line("service", "relay stopped: " + relayResult[0].failure().get().message());
                    // Stop the tap. On a bad line the target got every line before it and finishes
                    // normally (its stdin is closed); when the target closed its input, nothing reads on.
                    RunThreads.start("stop-tap-" + plan.runId(), () -> watch.terminate(tap));
                }
            }
        });
        relayThread.join(config.runner().terminateGrace().toMillis() + 5000);
        if (relayThread.isAlive() || tap.isAlive()) {
            watch.terminate(tap);
            relayThread.join();
        }
        mappers.forEach(watch::awaitOrTerminate);
        for (Thread p : pumps) {
            p.join(5000);
        }
        stateReader.join(5000);
        watch.awaitOrTerminate(tap);

        String tail = ctx.log.tail();
        Map<String, Integer> exitCodes = new java.util.LinkedHashMap<>();
        OutcomeClassifier.Exit tapExit = exit("extractor", tap, tail, exitCodes);
        List<OutcomeClassifier.Exit> mapperExits = new ArrayList<>();
        for (int i = 0; i < mappers.size(); i++) {
            mapperExits.add(exit("mapper:" + plan.mappers().get(i).name(), mappers.get(i), tail, exitCodes));
        }
        OutcomeClassifier.Exit targetExit = exit("loader", target, tail, exitCodes);
        RelayFailure failure = relayResult[0] == null ? null : relayResult[0].failure().orElse(null);
        return new Result(new OutcomeClassifier.ExtractLoad(ctx.stop.get(), failure, tapExit, mapperExits, targetExit),
                exitCodes, checkpointer, relay);
    }

    private static OutcomeClassifier.Exit exit(String prefix, ConnectorProcess p, String logTail,
                                               Map<String, Integer> exitCodes) {
        int code = RunThreads.code(p);
        exitCodes.put(prefix, code);
        return new OutcomeClassifier.Exit(prefix, code, OutcomeClassifier.lastLine(logTail, prefix));
    }

    /** {@code <executable> <args...> --config <file>}. */
    static List<String> command(RunPlan.Component c, Path configFile) {
        List<String> cmd = new ArrayList<>();
        cmd.add(c.executable());
        cmd.addAll(c.args());
        cmd.add("--config");
        cmd.add(configFile.toString());
        return cmd;
    }

    /**
     * Starts one process of the run under its supervisor, as {@code tapline.runner.run-as-user}
     * when configured ({@link io.tapline.common.security.RunAsUser}); a failure to start is a
     * {@link RunFailure}.
     */
    static ConnectorProcess start(ActiveRun ctx, String prefix, List<String> cmd, RunDirectory dir,
                                  Map<String, String> env, io.tapline.common.security.RunAsUser runAs) {
        try {
            return ctx.supervisor.start(new ProcessSpec(prefix, runAs.wrap(cmd, dir.path()), dir.path(), env),
                    line -> ctx.log.prefixed(MeltanoOutput.strip(line)));
        } catch (IOException e) {
            throw OutcomeClassifier.startFailure(prefix, cmd.get(0), e);
        }
    }

    private ConnectorProcess start(ActiveRun ctx, String prefix, List<String> cmd, RunDirectory dir,
                                   PreparedRun prepared, String plugin) {
        return start(ctx, prefix, cmd, dir, prepared.env(plugin), runAs);
    }
}

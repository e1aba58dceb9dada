package io.tapline.run.exec;

import io.tapline.connector.ConnectorProcess;
import io.tapline.invocation.PluginEnv;
import io.tapline.invocation.PreparedRun;
import io.tapline.invocation.RunDirectory;
import io.tapline.invocation.RunPlan;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transform step of the {@code singer} executor, after a successful extract-load: the
 * transform plugin's executable with its args and the pipeline's transform args, without stdin,
 * its stdout and stderr in the run log, its settings as environment variables named as Meltano
 * names them ({@link PluginEnv}), watched by {@link ProcessWatch}.
 */
@ApplicationScoped
public class TransformStep {

    private final ProcessWatch watch;
    private final Clock clock;

    private final io.tapline.common.security.RunAsUser runAs;

    public TransformStep(ProcessWatch watch, Clock clock, io.tapline.common.security.RunAsUser runAs) {
        this.runAs = runAs;
        this.watch = watch;
        this.clock = clock;
    }

    /** Runs the transform; records its exit code (key {@code transform}) and its stage. */
    Outcome run(RunPlan plan, ActiveRun ctx, RunDirectory dir, PreparedRun prepared, Map<String, Integer> exitCodes) {
        RunPlan.Component t = plan.transform();
        List<String> cmd = new ArrayList<>();
        cmd.add(t.executable());
        cmd.addAll(t.args());
        cmd.addAll(plan.transformArgs());
        ctx.log.line("service", "transform: " + String.join(" ", cmd));
        Map<String, String> env = new LinkedHashMap<>(PluginEnv.of(t, prepared.transform(), plan.environment(),
                dir.path().toAbsolutePath().toString(), plan.runId().toString()));
        env.putAll(prepared.env(t.name()));
        Instant started = clock.instant();
        ConnectorProcess proc = ExtractLoad.start(ctx, "transform", cmd, dir, env, runAs);
        RunThreads.closeQuietly(proc.stdin());
        Thread stdout = RunThreads.lines("transform-stdout", proc.stdout(), line -> ctx.log.line("transform",
                MeltanoOutput.strip(line)));
        watch.watch(ctx, poll -> RunThreads.waitFor(proc, poll));
        RunThreads.join(stdout, 5000);
        int code = RunThreads.code(proc);
        exitCodes.put("transform", code);
        Outcome o = OutcomeClassifier.transform(ctx.stop.get(), new OutcomeClassifier.Exit("transform", code,
                OutcomeClassifier.lastLine(ctx.log.tail(), "transform")));
        ctx.stage("transform", started, clock.instant(), o.status().name());
        return o;
    }
}

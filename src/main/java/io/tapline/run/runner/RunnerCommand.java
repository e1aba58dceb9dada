package io.tapline.run.runner;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.ShutdownEvent;
import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.run.Run;
import io.tapline.run.RunRepository;
import io.tapline.run.RunStatus;
import io.tapline.run.exec.RunExecutor;
import io.tapline.run.kubernetes.JobWatcher;
import io.tapline.run.kubernetes.RunJobSpec;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runner mode: {@code run <run-id> [--job <job-name>] [--prepared <file>]} executes exactly that
 * run with the service's engine (relay, state checkpoints, heartbeat with log tail and cancel
 * requests) and exits; no HTTP server, scheduler or dispatcher runs ({@link #SETTINGS}).
 *
 * <p>The claim is guarded as any claim: without {@code --job}, QUEUED → RUNNING with this
 * instance as owner ({@link RunRepository#claim}); with {@code --job} (the Job's pod of the
 * {@code kubernetes} executor), the run must be RUNNING and owned by {@code job:<job-name>}, and
 * this instance takes it over ({@link RunRepository#handOver}). A second runner on the same id
 * finds the run taken and exits without running it.
 *
 * <p>On SIGTERM (the Job was deleted: cancel; or the pod is stopped) the last heartbeat picks up a
 * cancel request first, then the run is stopped as on a service shutdown: the connectors get
 * {@code tapline.runner.terminate-grace}, the last acknowledged state is stored, the run is
 * recorded.
 *
 * <p>Exit codes: {@value #OK} the run succeeded; {@value #RUN_FAILED} it failed or was cancelled;
 * {@value #USAGE} bad arguments; {@value #NOT_CLAIMED} the run was not there to claim.
 */
@ApplicationScoped
public class RunnerCommand implements QuarkusApplication {

    /** The sub-command. */
    public static final String NAME = "run";
    /** Exit code: the run succeeded. */
    public static final int OK = 0;
    /** Exit code: the run ended FAILED or CANCELLED. */
    public static final int RUN_FAILED = 1;
    /** Exit code: the arguments are wrong. */
    public static final int USAGE = 2;
    /** Exit code: the run was not QUEUED (or not handed to this Job): another runner has it or it ended. */
    public static final int NOT_CLAIMED = 3;
    /**
     * Settings of runner mode, applied as system properties before the application starts: no
     * HTTP server, no scheduled jobs (dispatcher, reaper, schedule ticker, deliveries), no
     * schema migration (the service owns the schema), no demo seeding.
     */
    public static final Map<String, String> SETTINGS = Map.of(
            "tapline.runner.single-run", "true",
            "quarkus.http.host-enabled", "false",
            "quarkus.scheduler.enabled", "false",
            "tapline.scheduler.enabled", "false",
            "tapline.demo.enabled", "false",
            "quarkus.flyway.migrate-at-start", "false");
    private static final Logger LOG = Logger.getLogger(RunnerCommand.class);

    private final RunRepository runs;
    private final RunExecutor executor;
    private final InstanceId instance;
    private final TaplineConfig config;
    private final Clock clock;
    private volatile UUID current;

    public RunnerCommand(RunRepository runs, RunExecutor executor, InstanceId instance, TaplineConfig config,
                         Clock clock) {
        this.runs = runs;
        this.executor = executor;
        this.instance = instance;
        this.config = config;
        this.clock = clock;
    }

    /** Applies {@link #SETTINGS} (unless set otherwise on the command line). */
    public static void configure() {
        SETTINGS.forEach((k, v) -> {
            if (System.getProperty(k) == null) {
                System.setProperty(k, v);
            }
        });
    }

    @Override
    public int run(String... args) {
        Arguments a;
        try {
            a = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("tapline run: " + e.getMessage());
            System.err.println("usage: run <run-id> [--job <job-name>] [--prepared <file>]");
            return USAGE;
        }
        long sinceJvm = ManagementFactory.getRuntimeMXBean().getUptime();
        boolean claimed = QuarkusTransaction.requiringNew().call(() -> a.job() == null
                ? runs.claim(a.runId(), instance.get(), OffsetDateTime.now(clock))
                : runs.handOver(a.runId(), JobWatcher.JOB_OWNER_PREFIX + a.job(), instance.get(),
                        OffsetDateTime.now(clock)));
        if (!claimed) {
            Run r = QuarkusTransaction.requiringNew().call(() -> runs.findById(a.runId()));
            LOG.warnf("Run %s was not claimed (%s): %s", a.runId(), r == null ? "no such run"
                    : r.status + ", owner " + r.ownerInstance, a.job() == null ? "it is not QUEUED and due"
                    : "it is not RUNNING as Job " + a.job());
            return NOT_CLAIMED;
        }
        LOG.infof("Runner %s claimed run %s %d ms after the JVM started", instance.get(), a.runId(), sinceJvm);
        current = a.runId();
        ScheduledExecutorService beat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "runner-heartbeat");
            t.setDaemon(true);
            return t;
        });
        long every = config.runner().heartbeatInterval().toMillis();
        beat.scheduleWithFixedDelay(executor::heartbeat, every, every, TimeUnit.MILLISECONDS);
        try {
            executor.execute(a.runId(), a.prepared());
        } finally {
            beat.shutdownNow();
        }
        Run r = QuarkusTransaction.requiringNew().call(() -> runs.findById(a.runId()));
        RunStatus status = r == null ? null : r.status;
        LOG.infof("Run %s ended %s", a.runId(), status);
        return status == RunStatus.SUCCEEDED ? OK : RUN_FAILED;
    }

    /** On SIGTERM: one last heartbeat first, so that a cancel request is recorded as the cancel it is. */
    void onShutdown(@Observes @Priority(0) ShutdownEvent event) {
        if (current != null) {
            executor.heartbeat();
        }
    }

    /** The parsed arguments. */
    record Arguments(UUID runId, String job, Path prepared) {

        static Arguments parse(String... args) {
            if (args.length == 0) {
                throw new IllegalArgumentException("a run id is required");
            }
            UUID id;
            try {
                id = UUID.fromString(args[0]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("not a run id: " + args[0]);
            }
            String job = null;
            Path prepared = null;
            for (int i = 1; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                switch (args[i]) {
                    case "--job" -> job = args[i + 1];
                    case "--prepared" -> prepared = Path.of(args[i + 1]);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (job != null && !job.equals(RunJobSpec.jobName(id))) {
                throw new IllegalArgumentException("--job " + job + " is not the Job of run " + id);
            }
            return new Arguments(id, job, prepared);
        }
    }
}

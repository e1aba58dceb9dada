package io.tapline.invocation;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.PluginEnvironment;
import io.tapline.plugin.install.PluginInstallException;
import io.tapline.plugin.install.PluginInstallService;
import io.tapline.plugin.install.PluginInstaller;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The install stage of a run: each plugin of the run that has a pip_url is installed on this
 * replica if it is not yet ({@link PluginInstaller#ensureInstalled}), with its output in the run
 * log under {@code install:<plugin>}, and its executable (a command name) then resolves inside
 * its environment's {@code bin/}. Plugins without a pip_url are left as they are. When
 * {@code tapline.security.executable-dirs} is set, the environment must lie in one of its
 * directories (checked before installing).
 */
@ApplicationScoped
public class RunInstalls {

    /** Where the stage writes the run log. */
    @FunctionalInterface
    public interface LogSink {
        /** One line under a component prefix. */
        void line(String prefix, String text);
    }

    /** Where the stage records its stages (the run's {@code stages}). */
    @FunctionalInterface
    public interface StageSink {
        /** A finished stage. */
        void stage(String name, Instant started, Instant ended, String status);
    }

    /**
     * A plugin of the run could not be installed: the run fails with this component and reason
     * (not retryable).
     */
    public static final class Failed extends PluginInstallException {
        private final FailedComponent component;

        Failed(FailedComponent component, String reason) {
            super(reason);
            this.component = component;
        }

        /** The component whose plugin could not be installed. */
        public FailedComponent component() {
            return component;
        }
    }

    private final PluginInstaller installer;
    private final PluginInstallService records;
    private final Clock clock;
    private final ExecutablePolicy executables;
    private final TaplineConfig config;

    public RunInstalls(PluginInstaller installer, PluginInstallService records, Clock clock,
                       ExecutablePolicy executables, TaplineConfig config) {
        this.installer = installer;
        this.records = records;
        this.clock = clock;
        this.executables = executables;
        this.config = config;
    }

    /**
     * Installs what the run needs and returns its plan with the executables resolved.
     *
     * @param stopRequest non-null once the run is asked to stop (cancel, timeout, shutdown)
     * @throws Failed when a plugin cannot be installed
     */
    public RunPlan prepare(RunPlan plan, LogSink log, StageSink stages, Supplier<?> stopRequest) {
        RunPlan.Component ex = resolve(plan, plan.extractor(), FailedComponent.EXTRACTOR, log, stages, stopRequest);
        List<RunPlan.Component> maps = new ArrayList<>();
        for (RunPlan.Component m : plan.mappers()) {
            maps.add(resolve(plan, m, FailedComponent.MAPPER, log, stages, stopRequest));
        }
        RunPlan.Component lo = resolve(plan, plan.loader(), FailedComponent.LOADER, log, stages, stopRequest);
        RunPlan.Component tr = plan.transform() == null ? null
                : resolve(plan, plan.transform(), FailedComponent.TRANSFORM, log, stages, stopRequest);
        return new RunPlan(plan.runId(), plan.pipeline(), plan.stateId(), ex, List.copyOf(maps), lo, tr,
                plan.transformArgs(), plan.fullRefresh(), plan.fullRefreshStreams(), plan.strategy(), plan.onSuccess(),
                plan.timeoutSeconds(), plan.env(), plan.environment(), plan.meltano(), plan.extractorId(),
                plan.refreshCatalog());
    }

    private RunPlan.Component resolve(RunPlan plan, RunPlan.Component c, FailedComponent role, LogSink log,
                                      StageSink stages, Supplier<?> stopRequest) {
        if (c.pipUrl() == null) {
            return c; // nothing to install: no query for the plugins most runs have
        }
        PluginInstallService.Target t = records.find(PluginType.fromPath(c.type()), c.name()).orElse(null);
        if (t == null || t.pipUrl() == null) {
            return c;
        }
        String prefix = "install:" + c.name();
        String planned = PluginInstaller.executable(PluginEnvironment.of(config.plugins().dir(), c.type(), c.name()),
                c.executable());
        executables.violation(role.id(), planned, null, Path.of("").toAbsolutePath()).ifPresent(v -> {
            throw new Failed(role, v + "; add tapline.plugins.dir to tapline.security.executable-dirs to run"
                    + " installed plugins");
        });
        Instant started = clock.instant();
        PluginInstaller.Ensured e;
        try {
            e = installer.ensureInstalled(t, plan.runId(), line -> log.line(prefix, line),
                    () -> stopRequest.get() != null);
        } catch (PluginInstallException ex) {
            stages.stage(prefix, started, clock.instant(), "FAILED");
            throw new Failed(role, "installing " + c.type() + "/" + c.name() + " failed: " + ex.getMessage());
        }
        String exe = PluginInstaller.executable(e.env(), c.executable());
        if (e.installedNow()) {
            stages.stage(prefix, started, clock.instant(), "SUCCEEDED");
        } else {
            log.line("service", c.type() + "/" + c.name() + " is installed on this replica ("
                    + (e.marker().distribution() == null ? "pip_url" : e.marker().distribution() + " "
                    + e.marker().version()) + "): " + exe);
        }
        return c.withExecutable(exe);
    }
}

package io.tapline.pipeline;

import io.tapline.pipeline.schedule.CatchUp;
import io.tapline.plugin.Plugin;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OrderColumn;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipeline: extractor → [mappers] → loader [→ transform], with its Meltano state ID, schedule,
 * state strategy, commit policy, timeout and retry policy.
 */
@Entity
@Table(name = "pipeline")
public class Pipeline {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false, length = 100)
    public String name;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "extractor_id", nullable = false)
    public Plugin extractor;

    @ManyToMany(fetch = FetchType.LAZY)
    @JoinTable(name = "pipeline_mapper", joinColumns = @JoinColumn(name = "pipeline_id"),
            inverseJoinColumns = @JoinColumn(name = "plugin_id"))
    @OrderColumn(name = "position")
    public List<Plugin> mappers = new ArrayList<>();

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "loader_id", nullable = false)
    public Plugin loader;

    /** Utility or transformer run after a successful extract-load, or null. */
    @ManyToOne(fetch = FetchType.LAZY)
    @JoinColumn(name = "transform_id")
    public Plugin transform;

    /** JSON array of arguments of the transform command (for example {@code ["run"]}). */
    @Column(name = "transform_args", nullable = false)
    public String transformArgs = "[]";

    @Column(nullable = false, length = 100)
    public String environment;

    @Column(name = "state_id_suffix", length = 200)
    public String stateIdSuffix;

    /** The Meltano state ID: derived, or the explicit override. */
    @Column(name = "state_id", nullable = false, length = 900)
    public String stateId;

    /** True when {@link #stateId} was given explicitly instead of derived. */
    @Column(name = "state_id_overridden", nullable = false)
    public boolean stateIdOverridden;

    @Column(name = "schedule_interval", nullable = false, length = 200)
    public String scheduleInterval = "@manual";

    @Column(name = "schedule_timezone", nullable = false, length = 64)
    public String scheduleTimezone = "UTC";

    @Column(name = "schedule_enabled", nullable = false)
    public boolean scheduleEnabled = true;

    /** What to do about ticks missed while no replica ran or while paused. */
    @Enumerated(EnumType.STRING)
    @Column(name = "schedule_catch_up", nullable = false, length = 8)
    public CatchUp scheduleCatchUp = CatchUp.NONE;

    /** Pause the schedule after this many consecutive failed runs; null = never. */
    @Column(name = "schedule_pause_after_failures")
    public Integer schedulePauseAfterFailures;

    /** Why the schedule paused itself, or null. */
    @Column(name = "schedule_paused_reason")
    public String schedulePausedReason;

    @Column(name = "state_strategy", nullable = false, length = 16)
    @jakarta.persistence.Convert(converter = StateStrategyConverter.class)
    public StateStrategy stateStrategy = StateStrategy.AUTO;

    @Enumerated(EnumType.STRING)
    @Column(name = "state_commit_policy", nullable = false, length = 16)
    public StateCommitPolicy stateCommitPolicy = StateCommitPolicy.CHECKPOINT;

    /** Run timeout in seconds, or null for none. */
    @Column(name = "timeout_seconds")
    public Integer timeoutSeconds;

    @Column(name = "retry_max_attempts", nullable = false)
    public int retryMaxAttempts = 1;

    @Column(name = "retry_backoff_seconds", nullable = false)
    public int retryBackoffSeconds = 60;

    @Column(name = "retry_backoff_max_seconds", nullable = false)
    public int retryBackoffMaxSeconds = 3600;

    /** JSON object of environment variables for every process of the pipeline. */
    @Column(nullable = false)
    public String env = "{}";

    /** {@code singer} (Tapline runs the connectors) or {@code meltano} ({@code meltano run} in a project). */
    @Column(nullable = false, length = 16)
    public String executor = "singer";

    /** Meltano project directory for the {@code meltano} executor, or null. */
    @Column(name = "meltano_project_dir", length = 4096)
    public String meltanoProjectDir;

    /** Meltano job: the job the pipeline was imported from; the {@code meltano} executor runs it. */
    @Column(name = "meltano_job", length = 100)
    public String meltanoJob;

    /** Root of the file state backend for the {@code meltano} executor; null = the configured one. */
    @Column(name = "meltano_state_backend_dir", length = 4096)
    public String meltanoStateBackendDir;

    @Version
    @Column(nullable = false)
    public long version;

    @Column(name = "created_at", nullable = false)
    public OffsetDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    public OffsetDateTime updatedAt;
}

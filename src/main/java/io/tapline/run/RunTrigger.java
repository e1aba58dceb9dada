package io.tapline.run;

/** What started a run. */
public enum RunTrigger {
    /** A schedule tick. */
    SCHEDULE,
    /** An operator, through the UI or CLI. */
    MANUAL,
    /** A call of {@code POST /api/v1/pipelines/{name}/runs}. */
    API,
    /** An automatic retry of a failed run. */
    RETRY
}

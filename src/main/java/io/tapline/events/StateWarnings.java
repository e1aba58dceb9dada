package io.tapline.events;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two silent ways to lose data that Tapline watches at the end of each run (docs/events.md):
 * a bookmark that stopped advancing, and a state that grows without bound. Plain logic over run
 * facts; thresholds come from {@code tapline.events.*} (and the pipeline's own not-advancing count).
 *
 * @param notAdvancingRuns default N of unchanged productive runs in a row
 * @param largeBytes size above which a state is large
 * @param growthFactor growth in one run above which a state is large...
 * @param growthMinBytes ...when it is at least this large afterwards
 */
public record StateWarnings(int notAdvancingRuns, long largeBytes, double growthFactor, long growthMinBytes) {

    /** The N in force for a run: the pipeline's own, else the setting. */
    public int threshold(RunFacts run) {
        return run.notAdvancingRuns() != null ? run.notAdvancingRuns() : notAdvancingRuns;
    }

    /**
     * The warnings of a run that just ended.
     *
     * @param run the run
     * @param recentUnchanged for the pipeline's newest SUCCEEDED runs with records, newest first and
     *                        starting with {@code run} (empty when it is not one): whether each left
     *                        its state unchanged; {@link #threshold} + 1 of them when there are
     */
    public List<StateWarning> of(RunFacts run, List<Boolean> recentUnchanged) {
        List<StateWarning> out = new ArrayList<>();
        notPassed(run, out);
        notAdvancing(run, recentUnchanged, out);
        large(run, out);
        return out;
    }

    /** Bookmarks the extractor was not given: an event on every such run, since each read everything again. */
    private static void notPassed(RunFacts run, List<StateWarning> out) {
        if (!run.stateNotPassed()) {
            return;
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("stateId", run.stateId());
        d.put("extractor", run.extractor());
        out.add(new StateWarning(EventType.STATE_NOT_PASSED, "state ID '" + run.stateId() + "' has stored bookmarks,"
                + " but the extractor" + (run.extractor() == null ? "" : " '" + run.extractor() + "'") + " does not"
                + " declare the 'state' capability: it was not given them (--state) and read everything again; add"
                + " 'state' to its capabilities, or remove them so that it is asked (--about)", d, true));
    }

    private void notAdvancing(RunFacts run, List<Boolean> recent, List<StateWarning> out) {
        if (!"SUCCEEDED".equals(run.status()) || run.recordsTotal() <= 0 || recent.isEmpty()) {
            return;
        }
        int n = threshold(run);
        int streak = 0;
        while (streak < recent.size() && streak <= n && recent.get(streak)) {
            streak++;
        }
        if (streak < n) {
            return;
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("stateId", run.stateId());
        d.put("unchangedRuns", n);
        d.put("threshold", n);
        out.add(new StateWarning(EventType.STATE_NOT_ADVANCING, "the state of state ID '" + run.stateId()
                + "' did not change over the last " + n + " successful run(s) that emitted records: the bookmark"
                + " is not advancing (does the loader echo an old state?)", d, streak == n));
    }

    private void large(RunFacts run, List<StateWarning> out) {
        long size = run.stateAfterBytes();
        long before = run.stateBeforeBytes();
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("stateId", run.stateId());
        d.put("bytes", size);
        d.put("bytesBefore", before);
        if (size > largeBytes) {
            d.put("thresholdBytes", largeBytes);
            out.add(new StateWarning(EventType.STATE_LARGE, "the state of state ID '" + run.stateId() + "' is " + size
                    + " bytes, above tapline.events.state-large-bytes (" + largeBytes + ")", d, before <= largeBytes));
        } else if (size >= growthMinBytes && before > 0 && size > before * growthFactor) {
            d.put("growthFactor", growthFactor);
            out.add(new StateWarning(EventType.STATE_LARGE, "the state of state ID '" + run.stateId() + "' grew from "
                    + before + " to " + size + " bytes in one run (more than " + growthFactor + " times)", d, true));
        }
    }
}

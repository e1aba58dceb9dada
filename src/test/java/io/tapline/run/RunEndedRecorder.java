package io.tapline.run;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records every {@link RunEnded} of the test application with the status its observer reads with a
 * fresh query inside the ending transaction (the contract webhooks are built on), and how often.
 */
@ApplicationScoped
public class RunEndedRecorder {

    private final RunRepository runs;
    private final Map<UUID, String> seen = new ConcurrentHashMap<>();
    private final Map<UUID, Integer> times = new ConcurrentHashMap<>();

    public RunEndedRecorder(RunRepository runs) {
        this.runs = runs;
    }

    void onEnded(@Observes RunEnded event) {
        String status = (String) runs.getEntityManager()
                .createNativeQuery("select status from pipeline_run where id = :id")
                .setParameter("id", event.runId()).getSingleResult();
        seen.put(event.runId(), status);
        times.merge(event.runId(), 1, Integer::sum);
    }

    /** The status the observer saw, or null when no event was fired for the run. */
    public String status(UUID run) {
        return seen.get(run);
    }

    /** How many events were fired for the run. */
    public int times(UUID run) {
        return times.getOrDefault(run, 0);
    }
}

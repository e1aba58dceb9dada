package io.tapline.schedule;

import io.tapline.pipeline.PipelineChanged;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Test bean recording the {@link PipelineChanged} events that reached after-commit observers. */
@ApplicationScoped
public class PipelineChangedRecorder {

    private final List<PipelineChanged> events = new CopyOnWriteArrayList<>();

    void record(@Observes(during = TransactionPhase.AFTER_SUCCESS) PipelineChanged e) {
        events.add(e);
    }

    /** Ids carried by the events for this pipeline name, in order. */
    List<Long> ids(String name) {
        return events.stream().filter(e -> e.name().equals(name)).map(PipelineChanged::id).toList();
    }

    long count(String name) {
        return events.stream().filter(e -> e.name().equals(name)).count();
    }
}

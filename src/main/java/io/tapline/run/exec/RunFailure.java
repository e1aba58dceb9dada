package io.tapline.run.exec;

import io.tapline.run.FailedComponent;
import io.tapline.run.FailureType;

/**
 * A run that cannot go on, with its failed component and failure type: thrown by the preparation
 * (configuration), the catalog (discovery) and process starts, caught once by the executor.
 */
final class RunFailure extends RuntimeException {

    final FailedComponent component;
    final FailureType type;

    RunFailure(FailedComponent component, FailureType type, String message) {
        super(message);
        this.component = component;
        this.type = type;
    }

    /** The outcome that records it. */
    Outcome outcome() {
        return Outcome.failed(component, type, getMessage());
    }
}

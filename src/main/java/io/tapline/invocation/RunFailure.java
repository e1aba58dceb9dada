package io.tapline.invocation;

/**
 * A run that cannot go on, with its failed component and failure type: thrown by the preparation
 * (configuration), the catalog (discovery) and process starts, caught once by the executor.
 */
public final class RunFailure extends RuntimeException {

    public final FailedComponent component;
    public final FailureType type;

    public RunFailure(FailedComponent component, FailureType type, String message) {
        super(message);
        this.component = component;
        this.type = type;
    }
}

package io.tapline.support;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** A service that queues runs but never executes them: for tests that look at run rows only. */
public class NoRunnerProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("tapline.runner.max-concurrent-runs", "0");
    }
}

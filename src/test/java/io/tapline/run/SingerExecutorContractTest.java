package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import java.nio.file.Path;
import java.util.Map;

import io.tapline.support.Connectors;

/** {@link ExecutorContract} for {@code executor: singer} (the test tap and target as processes). */
@QuarkusTest
@TestProfile(SingerExecutorContractTest.Profile.class)
class SingerExecutorContractTest extends ExecutorContract {

    /** An application of its own: the shutdown case stops its executor. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public String getConfigProfile() {
            return "test";
        }
    }

    @Override
    String pipeline(Behaviour behaviour, Path pids) {
        String p = pids.toString();
        return switch (behaviour) {
            case SUCCEED -> Connectors.pipeline(Map.of("records", 2, "pid_file", p), Map.of(), Map.of());
            case FAIL -> Connectors.pipeline(Map.of("mode", "crash-after-state", "pid_file", p), Map.of(), Map.of());
            case HANG -> Connectors.pipeline(Map.of("mode", "hang", "pid_file", p), Map.of(), Map.of());
            case HANG_IGNORING_SIGTERM -> Connectors.pipeline(Map.of("mode", "ignore-sigterm", "pid_file", p),
                    Map.of("mode", "ignore-sigterm", "pid_file", p), Map.of("timeoutSeconds", 2));
        };
    }

    @Override
    String failingComponent() {
        return "extractor";
    }
}

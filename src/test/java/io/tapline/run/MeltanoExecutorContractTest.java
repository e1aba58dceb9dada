package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** {@link ExecutorContract} for {@code executor: meltano} (the Meltano stand-in). */
@QuarkusTest
@TestProfile(MeltanoExecutorContractTest.Profile.class)
class MeltanoExecutorContractTest extends ExecutorContract {

    /** An application of its own: the shutdown case stops its executor. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public String getConfigProfile() {
            return "test";
        }
    }

    @Override
    String pipeline(Behaviour behaviour, Path pids) throws Exception {
        Path record = Files.createTempFile("meltano-record", ".json");
        String p = pids.toString();
        return switch (behaviour) {
            case SUCCEED -> {
                // the stand-in writes no pid when it succeeds; the contract needs one line
                Files.writeString(pids, ProcessHandle.current().pid() + "\n");
                yield MeltanoExecutorTest.pipeline(record, Map.of(), Map.of());
            }
            case FAIL -> MeltanoExecutorTest.pipeline(record, Map.of(), Map.of("FAKE_MELTANO_MODE", "fail"));
            case HANG -> MeltanoExecutorTest.pipeline(record, Map.of(), Map.of("FAKE_MELTANO_MODE", "hang",
                    "FAKE_MELTANO_PID_FILE", p));
            case HANG_IGNORING_SIGTERM -> MeltanoExecutorTest.pipeline(record, Map.of("timeoutSeconds", 2), Map.of(
                    "FAKE_MELTANO_MODE", "hang", "FAKE_MELTANO_IGNORE_SIGTERM", "1", "FAKE_MELTANO_PID_FILE", p));
        };
    }

    @Override
    String failingComponent() {
        return "meltano";
    }
}

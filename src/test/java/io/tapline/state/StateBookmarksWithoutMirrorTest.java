package io.tapline.state;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StateBookmarksTest} on a service without the file mirror (the default configuration):
 * a write then reads the stored state once, under its lock, instead of again after the mirror's
 * look at the file.
 */
@QuarkusTest
@TestProfile(StateBookmarksWithoutMirrorTest.NoMirror.class)
class StateBookmarksWithoutMirrorTest extends StateBookmarksTest {

    @Test
    void theServiceRunsWithoutAMirrorDirectory() {
        assertTrue(ConfigProvider.getConfig().getOptionalValue("tapline.state.mirror-dir", String.class).isEmpty());
    }

    /** {@code tapline.state.mirror-dir} unset. */
    public static class NoMirror implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.state.mirror-dir", "");
        }
    }
}

package io.tapline.events;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link EventsProfile} with a delivery timeout far longer than any test waits (60 s, lease 5 min):
 * a receiver that never answers holds its attempts for the whole test.
 */
public class TarpitProfile implements QuarkusTestProfile {

    /** The receiver's settings with the long timeout. */
    public static class Resource extends ReceiverResource {
        @Override
        public Map<String, String> start() {
            Map<String, String> m = new HashMap<>(super.start());
            m.put("tapline.events.timeout", "60s");
            m.put("tapline.events.lease", "5m");
            return m;
        }
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Resource.class));
    }
}

package io.tapline.events;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.List;

/** A service wired to a local {@link Receiver} with fast delivery retries ({@link ReceiverResource}). */
public class EventsProfile implements QuarkusTestProfile {
    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(ReceiverResource.class));
    }
}

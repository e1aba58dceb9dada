package io.tapline.common.time;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import java.time.Clock;

/** The UTC system clock, injectable so that time-dependent logic can be tested with a fixed clock. */
@ApplicationScoped
public class ClockProducer {

    /** The system clock in UTC. */
    @Produces
    @DefaultBean
    @ApplicationScoped
    public Clock clock() {
        return Clock.systemUTC();
    }
}

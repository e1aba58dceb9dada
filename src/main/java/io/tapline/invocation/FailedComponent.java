package io.tapline.invocation;

import java.util.Locale;

/** The part of a run that failed it. */
public enum FailedComponent {
    EXTRACTOR, MAPPER, LOADER, TRANSFORM, SERVICE;

    /** Lowercase, as stored and shown. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}

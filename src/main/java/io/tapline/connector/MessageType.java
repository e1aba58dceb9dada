package io.tapline.connector;

import java.nio.charset.StandardCharsets;

/**
 * The Singer message types the relay counts separately. Any other value of {@code "type"}, a
 * missing or non-string {@code "type"}, and lines whose JSON value is not an object are
 * {@link #OTHER}.
 */
public enum MessageType {
    /** {@code RECORD}: one row of a stream. */
    RECORD("RECORD"),
    /** {@code SCHEMA}: the JSON schema of a stream. */
    SCHEMA("SCHEMA"),
    /** {@code STATE}: a bookmark; carries no stream. */
    STATE("STATE"),
    /** {@code ACTIVATE_VERSION}: switches a stream to a new table version. */
    ACTIVATE_VERSION("ACTIVATE_VERSION"),
    /** {@code BATCH}: a reference to a file of records (Meltano SDK batch messages). */
    BATCH("BATCH"),
    /** Anything else, including lines without a string {@code "type"}. */
    OTHER(null);

    /** The five named types, in declaration order (everything but {@link #OTHER}). */
    private static final MessageType[] NAMED = {RECORD, SCHEMA, STATE, ACTIVATE_VERSION, BATCH};

    private final String wireName;
    private final byte[] wireBytes;

    MessageType(String wireName) {
        this.wireName = wireName;
        this.wireBytes = wireName == null ? null : wireName.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The exact value of {@code "type"} on the wire, e.g. {@code "ACTIVATE_VERSION"}; null for
     * {@link #OTHER}.
     */
    public String wireName() {
        return wireName;
    }

    /** The wire name as ASCII bytes; null for {@link #OTHER}. Package-private: never modify it. */
    byte[] wireBytes() {
        return wireBytes;
    }

    /** The named types (all but {@link #OTHER}); package-private: never modify the array. */
    static MessageType[] named() {
        return NAMED;
    }

    /**
     * The type whose wire name is exactly {@code value} (case-sensitive, as Singer libraries
     * compare it); {@link #OTHER} for null or any other value.
     */
    public static MessageType fromWireName(String value) {
        if (value != null) {
            for (MessageType type : NAMED) {
                if (value.equals(type.wireName)) {
                    return type;
                }
            }
        }
        return OTHER;
    }
}

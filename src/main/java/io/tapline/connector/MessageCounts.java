package io.tapline.connector;

/**
 * Message counts of one stream (or of the lines without a stream): how many lines of each
 * {@link MessageType}, and how many bytes those lines took on the wire, line terminators included.
 * Immutable; all values are non-negative.
 */
public record MessageCounts(long records, long schemas, long states, long activateVersions, long batches,
                            long others, long bytes) {

    /** All zeros. */
    public static final MessageCounts ZERO = new MessageCounts(0, 0, 0, 0, 0, 0, 0);

    /** Total number of messages of all types. */
    public long messages() {
        return records + schemas + states + activateVersions + batches + others;
    }

    /** The number of messages of one type. */
    public long count(MessageType type) {
        return switch (type) {
            case RECORD -> records;
            case SCHEMA -> schemas;
            case STATE -> states;
            case ACTIVATE_VERSION -> activateVersions;
            case BATCH -> batches;
            case OTHER -> others;
        };
    }

    /** The field-wise sum of this and {@code other}. */
    public MessageCounts plus(MessageCounts other) {
        return new MessageCounts(records + other.records, schemas + other.schemas, states + other.states,
                activateVersions + other.activateVersions, batches + other.batches, others + other.others,
                bytes + other.bytes);
    }
}

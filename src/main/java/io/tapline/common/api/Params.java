package io.tapline.common.api;


import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.MalformedInputException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * Checks of request parameters and bodies shared by the resources; each failure is a domain error
 * ({@link InvalidInputException} naming the parameter, {@link MalformedInputException}), a 400 problem.
 */
public final class Params {

    private Params() {
    }

    /**
     * Parses an ISO-8601 time with offset ({@code 2026-01-31T00:00:00Z}).
     *
     * @return the time, or null when {@code value} is null or blank
     * @throws InvalidInputException 400 naming {@code field} when the value is not such a time
     */
    public static OffsetDateTime time(String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        OffsetDateTime t;
        try {
            t = OffsetDateTime.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw InvalidInputException.field(field, "must be an ISO-8601 time with offset, e.g. 2026-01-31T00:00:00Z");
        }
        if (t.getYear() < 1 || t.getYear() > 9999) {
            throw InvalidInputException.field(field, "must be a time between the years 0001 and 9999");
        }
        return t;
    }

    /**
     * Parses a boolean query parameter: {@code true} or {@code false} (any letter case). Anything
     * else, {@code yes}, {@code 1} or an empty value included, is refused rather than read as false,
     * so {@code ?force=yes} cannot silently mean "not forced".
     *
     * @param value the parameter as sent, or null when absent
     * @param absent the value when the parameter is absent
     * @throws InvalidInputException 400 naming {@code field} for any other value
     */
    public static boolean flag(String field, String value, boolean absent) {
        if (value == null) {
            return absent;
        }
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw InvalidInputException.field(field, "must be true or false, not " + Names.quote(value));
    }

    /**
     * The request body, required.
     *
     * @throws MalformedInputException 400 malformed-body when there is none
     */
    public static <T> T requireBody(T body) {
        if (body == null) {
            throw new MalformedInputException("A JSON request body is required.");
        }
        return body;
    }
}

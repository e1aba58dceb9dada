package io.tapline.project;

import io.tapline.common.error.InvalidInputException;

import java.util.Locale;

/**
 * What an import does with a plugin or pipeline that already exists ({@code ?onConflict=},
 * {@link ImportConflicts}): {@code replace} (the default), {@code merge} or {@code fail}.
 */
public enum OnConflict {
    /** The document's definition replaces the stored plugin; the plan lists what is dropped. */
    REPLACE,
    /** The document's values win for what it names; what it does not name is kept. */
    MERGE,
    /** Nothing is written when an existing plugin or pipeline would change (409). */
    FAIL;

    /**
     * Parses the query parameter (any letter case, surrounding blanks ignored); null or blank is
     * {@link #REPLACE}. JAX-RS calls it for {@code @QueryParam OnConflict}.
     *
     * @throws InvalidInputException 400 {@code validation} on {@code onConflict} for another value
     */
    public static OnConflict fromString(String value) {
        if (value == null || value.isBlank()) {
            return REPLACE;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("onConflict", "must be replace (default), merge or fail");
        }
    }

    /** The name as the API spells it: {@code replace}, {@code merge}, {@code fail}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}

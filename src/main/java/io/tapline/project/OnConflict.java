package io.tapline.project;

import io.tapline.common.error.InvalidInputException;

import java.util.Locale;

/**
 * What an import does with a plugin or pipeline that already exists ({@code ?onConflict=},
 * {@link ImportConflicts}): {@code replace}, {@code merge} or {@code fail}. Not given (null) is
 * {@code replace} guarded: it answers 409 instead of dropping a stored secret or capability
 * ({@link ImportConflicts#guardedDrops}).
 */
public enum OnConflict {
    /**
     * The document's definition replaces the stored plugin; the plan lists what is dropped. Given
     * explicitly, secrets and capabilities are dropped too; not given, such a drop is refused.
     */
    REPLACE,
    /** The document's values win for what it names; what it does not name is kept. */
    MERGE,
    /** Nothing is written when an existing plugin or pipeline would change (409). */
    FAIL;

    /**
     * Parses the query parameter (any letter case, surrounding blanks ignored); blank is null, as
     * an absent parameter is: not given, so that the import can tell the guarded default from an
     * explicit {@code replace}. JAX-RS calls it for {@code @QueryParam OnConflict}.
     *
     * @return the mode, or null when {@code value} is null or blank
     *
     * @throws InvalidInputException 400 {@code validation} on {@code onConflict} for another value
     */
    public static OnConflict fromString(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("onConflict", "must be replace, merge or fail (not given: replace, refusing to drop secrets and capabilities)");
        }
    }

    /** The name as the API spells it: {@code replace}, {@code merge}, {@code fail}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}

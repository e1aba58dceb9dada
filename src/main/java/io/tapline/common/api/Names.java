package io.tapline.common.api;


import io.tapline.common.error.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Name and identifier rules shared by the API. Plugin and pipeline names follow Meltano's
 * plugin-name rules; state IDs follow Meltano's systemdb limit (900 characters) and, where a file
 * is written, the rules that keep a state ID a single safe directory name (meltano-state.md §6.9).
 * Every check throws an {@link InvalidInputException} naming the field (a 400 {@code validation}
 * problem at the edge), so services use them as well as resources.
 */
public final class Names {

    /** Lowercase letters, digits, {@code -} and {@code _}; starts with a letter or digit; 1 to 100 characters. */
    public static final Pattern PLUGIN_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,99}");
    /** Letters, digits, {@code -} and {@code _}; 1 to 100 characters; never {@code :} (the state ID delimiter). */
    public static final Pattern ENVIRONMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,99}");
    /** Environment variable names. */
    public static final Pattern ENV_VAR = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,254}");
    /** Longest state ID, as Meltano's {@code state.state_id VARCHAR(900)}. */
    public static final int STATE_ID_MAX = 900;
    /** Longest directory name on usual POSIX file systems, in UTF-8 bytes. */
    public static final int FILE_NAME_MAX_BYTES = 255;

    private Names() {
    }

    /**
     * Checks a plugin or pipeline name.
     *
     * @param field the request field, for the error
     * @param value the name
     * @return the name
     */
    public static String pluginName(String field, String value) {
        if (value == null || !PLUGIN_NAME.matcher(value).matches()) {
            throw InvalidInputException.field(field, "must be 1 to 100 characters of lowercase letters, digits, '-' and '_',"
                    + " starting with a letter or digit (Meltano plugin-name rules); got " + quote(value));
        }
        return value;
    }

    /** Checks an environment name (no {@code :}, which delimits state ID components). */
    public static String environment(String field, String value) {
        if (value == null || !ENVIRONMENT.matcher(value).matches()) {
            throw InvalidInputException.field(field, "must be 1 to 100 characters of letters, digits, '-' and '_'; got "
                    + quote(value));
        }
        return value;
    }

    /**
     * Checks a state ID as stored: 1 to 900 characters, no control characters.
     *
     * @return the state ID
     */
    public static String stateId(String field, String value) {
        if (value == null || value.isEmpty() || value.length() > STATE_ID_MAX) {
            throw InvalidInputException.field(field, "must be 1 to " + STATE_ID_MAX + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                throw InvalidInputException.field(field, "must not contain control characters (found U+"
                        + String.format("%04X", (int) c) + " at index " + i + ")");
            }
        }
        return value;
    }

    /**
     * Checks that a state ID can be used verbatim as one directory name, as Meltano's local
     * filesystem state backend does: no {@code /}, not starting with {@code .}, at most 255 UTF-8
     * bytes (meltano-state.md §1d, §6.9).
     *
     * @return the state ID
     */
    public static String stateIdForFiles(String field, String value) {
        stateId(field, value);
        if (value.indexOf('/') >= 0 || value.indexOf('\\') >= 0) {
            throw InvalidInputException.field(field, "cannot be used as a directory name: it contains '/' or '\\'");
        }
        if (value.startsWith(".")) {
            throw InvalidInputException.field(field, "cannot be used as a directory name: it starts with '.'");
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > FILE_NAME_MAX_BYTES) {
            throw InvalidInputException.field(field, "cannot be used as a directory name: longer than "
                    + FILE_NAME_MAX_BYTES + " bytes in UTF-8");
        }
        return value;
    }

    /** Quotes a value for an error message, shortened to 60 characters. */
    public static String quote(String value) {
        if (value == null) {
            return "nothing";
        }
        String v = value.length() > 60 ? value.substring(0, 57) + "..." : value;
        return "'" + v.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}

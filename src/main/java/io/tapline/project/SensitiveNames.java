package io.tapline.project;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which setting names look like they hold secrets, and the environment variable names Meltano
 * uses for settings ({@code <PLUGIN_NAME>_<SETTING_NAME>}, upper case, every other character an
 * underscore), used for references in the meltano.yml export.
 */
public final class SensitiveNames {

    private static final Pattern ANYWHERE = Pattern.compile("password|passwd|passphrase|secret|token|credential");
    private static final Pattern NON_ALNUM = Pattern.compile("[^A-Za-z0-9]");
    /** A whole value that is one {@code ${NAME}} (or {@code ${env:NAME}}, {@code ${secret:NAME}}) reference. */
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{(?:(?:env|secret|file):)?[^}]+}");

    private SensitiveNames() {
    }

    /**
     * True for names containing password, passwd, passphrase, secret, token or credential, and for
     * names whose last word is {@code key} ({@code api_key}, {@code private_key}, {@code key}) or
     * that end in {@code apikey}; {@code key_properties} and {@code keys} are not sensitive.
     */
    public static boolean looksSensitive(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (ANYWHERE.matcher(n).find() || n.endsWith("apikey")) {
            return true;
        }
        String[] words = n.split("[^a-z0-9]+");
        return words.length > 0 && words[words.length - 1].equals("key");
    }

    /** True when the value is exactly one reference such as {@code ${TAP_X_PASSWORD}}. */
    public static boolean isReference(String value) {
        return value != null && REFERENCE.matcher(value.trim()).matches();
    }

    /** Meltano's environment variable for a setting: {@code tap-x} + {@code api.key} → {@code TAP_X_API_KEY}. */
    public static String envVar(String plugin, String setting) {
        return (NON_ALNUM.matcher(plugin).replaceAll("_") + "_" + NON_ALNUM.matcher(setting).replaceAll("_"))
                .toUpperCase(Locale.ROOT);
    }

    /** The reference the export writes for a secret setting: {@code ${TAP_X_PASSWORD}}. */
    public static String reference(String plugin, String setting) {
        return "${" + envVar(plugin, setting) + "}";
    }
}

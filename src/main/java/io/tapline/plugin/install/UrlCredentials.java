package io.tapline.plugin.install;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The user info of URLs in free text ({@code scheme://user:password@host}), for {@link PipUrl#masked}
 * and {@link PipOutput#mask}: one rule for what viewers, exports, markers and install logs show.
 */
final class UrlCredentials {

    /** What a masked credential reads. */
    static final String MASK = "********";

    /** scheme, user, optional ":password", then '@'. */
    private static final Pattern USERINFO = Pattern.compile("(?i)([a-z][a-z0-9+.-]*://)([^/@\\s:]+)(:[^/@\\s]*)?@");
    /** A whole reference of ConfigResolver's grammar: no secret in the text itself. */
    private static final Pattern REFERENCE = Pattern.compile(
            "\\$\\{(?:env|secret|file):[^}]+}|\\$\\{[A-Za-z_][A-Za-z0-9_]*}|\\$[A-Za-z_][A-Za-z0-9_]*");

    private UrlCredentials() {
    }

    static String mask(String text) {
        if (text == null || text.indexOf('@') < 0) {
            return text;
        }
        Matcher m = USERINFO.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String user = m.group(2);
            String password = m.group(3) == null ? null : m.group(3).substring(1);
            String replacement;
            if (password == null) {
                boolean keep = user.equals("git") || user.equals(MASK) || REFERENCE.matcher(user).matches();
                replacement = m.group(1) + (keep ? user : MASK) + "@";
            } else {
                boolean keep = password.equals(MASK) || REFERENCE.matcher(password).matches();
                replacement = m.group(1) + user + ":" + (keep ? password : MASK) + "@";
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** True when a URL's user info in {@code text} is (or ends in) the mask. */
    static boolean hasMask(String text) {
        Matcher m = USERINFO.matcher(text);
        while (m.find()) {
            if (m.group(2).equals(MASK) || (m.group(3) != null && m.group(3).equals(":" + MASK))) {
                return true;
            }
        }
        return false;
    }
}

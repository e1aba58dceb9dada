package io.tapline.events.webhook;

/** Pipeline name globs of subscriptions: {@code *} any run of characters, {@code ?} one character. */
public final class Globs {

    private Globs() {
    }

    /** Whether {@code name} matches {@code glob} entirely (case-sensitive, as pipeline names are lowercase). */
    public static boolean matches(String glob, String name) {
        return matches(glob, 0, name, 0);
    }

    private static boolean matches(String g, int gi, String s, int si) {
        int star = -1;
        int mark = 0;
        while (si < s.length()) {
            if (gi < g.length() && (g.charAt(gi) == '?' || g.charAt(gi) == s.charAt(si))) {
                gi++;
                si++;
            } else if (gi < g.length() && g.charAt(gi) == '*') {
                star = gi++;
                mark = si;
            } else if (star >= 0) {
                gi = star + 1;
                si = ++mark;
            } else {
                return false;
            }
        }
        while (gi < g.length() && g.charAt(gi) == '*') {
            gi++;
        }
        return gi == g.length();
    }
}

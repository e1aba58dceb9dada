package io.tapline.cli.out;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The terminal: stdout and stderr as UTF-8 streams, whether each of stdin and stdout is a TTY
 * (told by the launcher, which asks {@code [ -t 0 ]} and {@code [ -t 1 ]}; else
 * {@link System#console()}), and ANSI colours, used only when stdout is a TTY, {@code NO_COLOR} is
 * unset, {@code TERM} is not {@code dumb} and {@code --no-color} was not given.
 */
public final class Term {

    private static final PrintStream OUT = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 14), false, StandardCharsets.UTF_8);
    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            StandardCharsets.UTF_8);
    private static boolean noColor;

    private Term() {
    }

    /** Standard output (buffered; flushed at exit and after each followed log chunk). */
    public static PrintStream out() {
        return OUT;
    }

    /** Standard error (unbuffered). */
    public static PrintStream err() {
        return ERR;
    }

    /** {@code --no-color}. */
    public static void disableColor() {
        noColor = true;
    }

    /** Whether stdout is a terminal. */
    public static boolean stdoutTty() {
        return tty("tapline.stdout.tty");
    }

    /** Whether stdin is a terminal (questions are asked only then). */
    public static boolean stdinTty() {
        return tty("tapline.stdin.tty");
    }

    private static boolean tty(String property) {
        String told = System.getProperty(property);
        if (told != null) {
            return Boolean.parseBoolean(told);
        }
        return System.console() != null;
    }

    /** Whether to colour stdout. */
    public static boolean color() {
        if (noColor || System.getenv("NO_COLOR") != null && !System.getenv("NO_COLOR").isEmpty()) {
            return false;
        }
        String term = System.getenv("TERM");
        return stdoutTty() && !"dumb".equals(term);
    }

    /** Green when colouring. */
    public static String green(String s) {
        return style("32", s);
    }

    /** Red when colouring. */
    public static String red(String s) {
        return style("31", s);
    }

    /** Yellow when colouring. */
    public static String yellow(String s) {
        return style("33", s);
    }

    /** Dim (grey) when colouring. */
    public static String dim(String s) {
        return style("2", s);
    }

    /** Bold when colouring. */
    public static String bold(String s) {
        return style("1", s);
    }

    /** A run or install status in its colour: green SUCCEEDED, red FAILED/CANCELLED, yellow otherwise. */
    public static String status(String s) {
        if (s == null) {
            return "";
        }
        return switch (s.toUpperCase(Locale.ROOT)) {
            case "SUCCEEDED", "OK", "SUCCESS" -> green(s);
            case "FAILED", "CANCELLED", "INVALID" -> red(s);
            case "SKIPPED" -> dim(s);
            default -> yellow(s);
        };
    }

    private static String style(String code, String s) {
        return color() && s != null && !s.isEmpty() ? "\u001b[" + code + "m" + s + "\u001b[0m" : s;
    }

    /**
     * Text from a connector made safe for a terminal: escape sequences (CSI {@code ESC [ ... x},
     * OSC {@code ESC ] ... BEL}) removed, other control characters but tab shown as {@code ?}, so
     * that a log line cannot move the cursor, retitle the window or hide other lines.
     */
    public static String printable(String s) {
        return printable(s, false);
    }

    /**
     * As {@link #printable(String)}; with {@code keepColours}, colour sequences ({@code ESC [ digits
     * and ; m}, the only ones this CLI writes) stay.
     */
    public static String printable(String s, boolean keepColours) {
        StringBuilder b = null;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean control = (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f);
            if (!control) {
                if (b != null) {
                    b.append(c);
                }
                continue;
            }
            if (b == null) {
                b = new StringBuilder(n).append(s, 0, i);
            }
            if (c == 0x1b && i + 1 < n && (s.charAt(i + 1) == '[' || s.charAt(i + 1) == ']')) {
                boolean osc = s.charAt(i + 1) == ']';
                int j = i + 2;
                while (j < n && (osc ? s.charAt(j) != 0x07 && s.charAt(j) != 0x1b
                        : (s.charAt(j) < 0x40 || s.charAt(j) > 0x7e))) {
                    j++;
                }
                int end = osc && j + 1 < n && s.charAt(j) == 0x1b ? j + 1 : j;
                if (keepColours && !osc && end < n && s.charAt(end) == 'm'
                        && s.substring(i + 2, end).chars().allMatch(x -> (x >= '0' && x <= '9') || x == ';')) {
                    b.append(s, i, end + 1);
                }
                i = end;
            } else {
                b.append('?');
            }
        }
        return b == null ? s : b.toString();
    }

    /** The visible width of a string that may hold ANSI colour codes. */
    public static int width(String s) {
        int w = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\u001b') {
                while (i < s.length() && s.charAt(i) != 'm') {
                    i++;
                }
            } else if (!Character.isLowSurrogate(c)) {
                w++;
            }
        }
        return w;
    }
}

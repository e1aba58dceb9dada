package io.tapline.cli.out;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A table for people: upper-case headers, columns padded to their widest cell (colour codes not
 * counted), two spaces between columns, no trailing spaces; kubectl's layout.
 */
public final class Table {

    private final String[] headers;
    private final List<String[]> rows = new ArrayList<>();
    private final boolean tty = Term.stdoutTty();

    /** A table with these column headers. */
    public Table(String... headers) {
        this.headers = headers;
    }

    /**
     * Adds a row; null cells print as {@code -}; missing cells as empty. On a terminal, control
     * characters in cells are neutralised but for colours ({@link Term#printable(String, boolean)}).
     */
    public Table row(Object... cells) {
        String[] r = new String[headers.length];
        for (int i = 0; i < r.length; i++) {
            Object c = i < cells.length ? cells[i] : "";
            r[i] = c == null ? "-" : c.toString().replace('\n', ' ');
            if (tty) {
                r[i] = Term.printable(r[i], true);
            }
        }
        rows.add(r);
        return this;
    }

    /** Whether no row was added. */
    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Prints it. */
    public void print(PrintStream out) {
        int[] w = new int[headers.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = headers[i].length();
        }
        for (String[] r : rows) {
            for (int i = 0; i < w.length; i++) {
                w[i] = Math.max(w[i], Term.width(r[i]));
            }
        }
        line(out, Arrays.stream(headers).map(Term::bold).toArray(String[]::new), w);
        for (String[] r : rows) {
            line(out, r, w);
        }
    }

    private static void line(PrintStream out, String[] cells, int[] w) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            b.append(cells[i]);
            if (i < cells.length - 1) {
                b.append(" ".repeat(w[i] - Term.width(cells[i]) + 2));
            }
        }
        int end = b.length();
        while (end > 0 && b.charAt(end - 1) == ' ') {
            end--;
        }
        out.println(b.substring(0, end));
    }
}

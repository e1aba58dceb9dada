package io.tapline.state.json;

/**
 * Text that Python's {@code json.loads} would reject (meltano-state.md §1c "Invalid JSON provided",
 * §6.15 "only lines that fail to parse are skipped"), or bytes that are not UTF-8.
 *
 * <p>The message is short and names the position in the style of Python's {@code JSONDecodeError}:
 * {@code "<reason>: line L column C (char N)"}. Lines and columns count from 1; {@code char} is the
 * 0-based offset in UTF-16 code units of the text. For a UTF-8 error in byte input the column and
 * offset count bytes instead, and the message says {@code (byte N)}.
 */
public final class InvalidJsonException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String reason;
    private final int line;
    private final int column;
    private final long offset;

    /**
     * @param reason what is wrong, without position (e.g. {@code "Expecting value"})
     * @param line 1-based line, or -1 when unknown
     * @param column 1-based column, or -1 when unknown
     * @param offset 0-based character (or byte) offset, or -1 when unknown
     * @param unit {@code "char"} or {@code "byte"}: what {@code column} and {@code offset} count
     * @param cause the underlying parser error, may be null
     */
    InvalidJsonException(String reason, int line, int column, long offset, String unit, Throwable cause) {
        super(format(reason, line, column, offset, unit), cause, false, true);
        this.reason = reason;
        this.line = line;
        this.column = column;
        this.offset = offset;
    }

    private static String format(String reason, int line, int column, long offset, String unit) {
        if (line < 0) {
            return reason;
        }
        StringBuilder sb = new StringBuilder(reason.length() + 40).append(reason)
                .append(": line ").append(line).append(" column ").append(column);
        if (offset >= 0) {
            sb.append(" (").append(unit).append(' ').append(offset).append(')');
        }
        return sb.toString();
    }

    /** The reason without the position. */
    public String reason() {
        return reason;
    }

    /** 1-based line of the error, or -1 when unknown. */
    public int line() {
        return line;
    }

    /** 1-based column of the error, or -1 when unknown. */
    public int column() {
        return column;
    }

    /** 0-based character offset (byte offset for UTF-8 errors), or -1 when unknown. */
    public long offset() {
        return offset;
    }
}

package io.tapline.cli.out;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.PrintStream;
import java.util.function.Consumer;

/** Prints a result in the chosen {@link Format}. */
public final class Output {

    private Output() {
    }

    /**
     * Prints {@code data} as JSON or YAML, or runs {@code table} for the people's form.
     *
     * @param format the format asked for
     * @param data what the API answered (an object, or an array of a list's items)
     * @param table prints the table (or text) form to the stream it is given
     */
    public static void print(Format format, JsonNode data, Consumer<PrintStream> table) {
        PrintStream out = Term.out();
        switch (format) {
            case json -> out.println(Json.pretty(data));
            case yaml -> out.print(Yaml.write(data));
            default -> table.accept(out);
        }
    }

    /** A JSON value as a table cell: text as is, null as {@code -}, anything else as compact JSON. */
    public static String cell(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return "-";
        }
        if (n.isValueNode()) {
            return n.asText();
        }
        return Json.compact(n);
    }
}

package io.tapline.cli.out;

/** {@code --format} of list and show commands: a table for people, JSON or YAML for scripts. */
public enum Format {
    /** Columns for people (the default). */
    table,
    /** The API's JSON, indented; a list is a JSON array of its items. */
    json,
    /** The same as YAML. */
    yaml
}

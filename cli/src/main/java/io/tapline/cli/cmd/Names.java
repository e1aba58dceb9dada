package io.tapline.cli.cmd;

import java.util.List;

/**
 * Completion candidates that come from the service: each class stands for a kind of name and
 * yields one marker, which {@link CompletionCommand} turns into a call of
 * {@code tapline __complete <kind>} in the shell script ({@link CompleteCommand} answers it).
 */
final class Names {

    static final String MARKER = "__tapline_names_";

    private Names() {
    }

    /** Pipeline names. */
    static final class Pipelines implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return List.of(MARKER + "pipelines").iterator();
        }
    }

    /** State IDs. */
    static final class StateIds implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return List.of(MARKER + "states").iterator();
        }
    }

    /** Plugin names of every type. */
    static final class PluginNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return List.of(MARKER + "plugins").iterator();
        }
    }

    /** Extractor names. */
    static final class Extractors implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return List.of(MARKER + "extractors").iterator();
        }
    }

    /** The newest run IDs. */
    static final class Runs implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return List.of(MARKER + "runs").iterator();
        }
    }
}

package io.tapline.project.meltano;

import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.Problem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What reading one meltano.yml found: errors at YAML paths ({@code plugins.extractors[2].select})
 * and the keys Tapline does not act on. Errors are collected, not thrown one by one, so that one
 * answer lists every problem of the document, in document order ({@link #throwIfErrors}).
 *
 * <p>Errors inside an environment are held apart ({@link #errorIn}) until the reader knows which
 * environments it applies: only those are checked beyond their names, the others are kept for the
 * export as written ({@link #reportScope}).
 */
public final class Issues {

    /**
     * A key Tapline does not act on.
     *
     * @param path YAML path
     * @param reason why, and what is done with it
     */
    public record Unsupported(String path, String reason) {
    }

    private final MeltanoYaml.Parsed parsed;
    /** An error and the line of its path (0 when unknown). */
    private record Found(int line, Problem.FieldError error) {
    }

    private final List<Found> errors = new ArrayList<>();
    private final List<Unsupported> unsupported = new ArrayList<>();
    private final Map<String, List<Found>> held = new LinkedHashMap<>();

    /**
     * @param parsed the document, for the line of each path
     */
    public Issues(MeltanoYaml.Parsed parsed) {
        this.parsed = parsed;
    }

    /** Records an error at a YAML path; the message gets {@code " (line N)"} when the line is known. */
    public void error(String path, String message) {
        errors.add(fieldError(path, message));
    }

    /** Records an error that counts only if {@code scope} is reported ({@link #reportScope}). */
    void errorIn(String scope, String path, String message) {
        held.computeIfAbsent(scope, s -> new ArrayList<>()).add(fieldError(path, message));
    }

    /** Counts the errors held for {@code scope} (e.g. {@code environments[1]}) as errors. */
    public void reportScope(String scope) {
        List<Found> h = held.remove(scope);
        if (h != null) {
            errors.addAll(h);
        }
    }

    /** Records a key Tapline does not act on. */
    public void unsupported(String path, String reason) {
        unsupported.add(new Unsupported(path, reason));
    }

    /**
     * Runs a check of another feature ({@code Interval.parse}, {@code Names.environment}) and
     * records its failure at {@code path} with the check's own message.
     */
    public void check(String path, Runnable check) {
        try {
            check.run();
        } catch (InvalidInputException e) {
            error(path, e.errors().isEmpty() ? e.getMessage() : e.errors().get(0).message());
        }
    }

    /** The unsupported keys, in the order found. */
    public List<Unsupported> unsupported() {
        return List.copyOf(unsupported);
    }

    /** True when an error was recorded. */
    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    /**
     * Throws every recorded error as one.
     *
     * @throws InvalidInputException (400 {@code validation}) whose {@code errors[].field} are YAML
     *     paths; the detail is {@code "meltano.yml <path>: <message>"} for one error, else
     *     {@code "meltano.yml has N problems: <path>, <path>."}
     */
    public void throwIfErrors() {
        if (errors.isEmpty()) {
            return;
        }
        // In document order; errors without a line (the request's environment) first.
        List<Problem.FieldError> all = errors.stream().sorted(java.util.Comparator.comparingInt(Found::line))
                .map(Found::error).toList();
        throw new InvalidInputException(all.size() == 1
                ? "meltano.yml " + all.get(0).field() + ": " + all.get(0).message()
                : "meltano.yml has " + all.size() + " problems: " + String.join(", ",
                all.stream().map(Problem.FieldError::field).toList()) + ".", all);
    }

    private Found fieldError(String path, String message) {
        int line = parsed.line(path);
        return new Found(line, new Problem.FieldError(path, message + (line > 0 ? " (line " + line + ")" : "")));
    }
}

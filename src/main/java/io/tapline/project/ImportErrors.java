package io.tapline.project;

import io.tapline.common.error.ConflictException;
import io.tapline.common.error.ConnectorFailedException;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.LimitExceededException;
import io.tapline.common.error.MalformedInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.error.Problem;
import io.tapline.common.error.UnavailableException;
import io.tapline.common.error.UnprocessableException;
import io.tapline.common.error.VersionMismatchException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The error of a plugin or pipeline service call made by an import, placed at the YAML path of
 * the item it was made for: the same kind of error (so the same problem type and extension
 * members), its detail prefixed {@code "meltano.yml <path>: "}, and each field error moved under
 * the path with the API field names in their meltano.yml spelling ({@code pipUrl} →
 * {@code plugins.extractors[0].pip_url}).
 */
final class ImportErrors {

    /** API field names that meltano.yml spells otherwise. */
    private static final Map<String, String> YAML_NAMES = Map.of("pipUrl", "pip_url", "inheritFrom", "inherit_from",
            "schedule.interval", "interval", "schedule.timezone", "timezone");

    private ImportErrors() {
    }

    /**
     * The error to throw for {@code e}, raised by the service call for the item at {@code path};
     * an exception that is no domain error is returned as it is.
     */
    static RuntimeException at(String path, RuntimeException e) {
        return e instanceof DomainException d ? placed(path, d) : e;
    }

    private static DomainException placed(String path, DomainException e) {
        String detail = "meltano.yml " + path + ": " + e.getMessage();
        DomainException out;
        if (e instanceof InvalidInputException i) {
            out = new InvalidInputException(detail, fields(path, i.errors()));
        } else if (e instanceof MalformedInputException) {
            out = new MalformedInputException(detail);
        } else if (e instanceof NotFoundException) {
            out = new NotFoundException(detail);
        } else if (e instanceof ConflictException c) {
            out = new ConflictException(c.reason(), detail);
        } else if (e instanceof VersionMismatchException v) {
            out = new VersionMismatchException(detail, v.currentTag());
        } else if (e instanceof UnprocessableException) {
            out = new UnprocessableException(detail);
        } else if (e instanceof LimitExceededException l) {
            out = new LimitExceededException(l.limit(), detail);
        } else if (e instanceof UnavailableException) {
            out = e.getCause() == null ? new UnavailableException(detail) : new UnavailableException(detail, e.getCause());
        } else if (e instanceof ConnectorFailedException) {
            out = new ConnectorFailedException(detail);
        } else {
            return e;
        }
        e.details().forEach(out::with);
        return out;
    }

    private static List<Problem.FieldError> fields(String path, List<Problem.FieldError> errors) {
        List<Problem.FieldError> out = new ArrayList<>();
        for (Problem.FieldError f : errors) {
            String field = f.field();
            for (Map.Entry<String, String> n : YAML_NAMES.entrySet()) {
                if (field.equals(n.getKey()) || field.startsWith(n.getKey() + ".")) {
                    field = n.getValue() + field.substring(n.getKey().length());
                }
            }
            out.add(new Problem.FieldError(path + "." + field, f.message()));
        }
        return out;
    }
}

package io.tapline.common.error;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The domain errors map to problem types totally, and docs/problems.md lists exactly the catalogue. */
class DomainExceptionMappingTest {

    @Test
    void everyKindOfDomainErrorHasItsProblemType() {
        Map<DomainException, ProblemType> expected = Map.ofEntries(
                Map.entry(new NotFoundException("Pipeline", "daily"), ProblemType.NOT_FOUND),
                Map.entry(InvalidInputException.field("name", "must not be blank"), ProblemType.VALIDATION),
                Map.entry(new MalformedInputException("The request body is not valid JSON."), ProblemType.MALFORMED_BODY),
                Map.entry(new ConflictException(ConflictException.Reason.ALREADY_EXISTS, "x"), ProblemType.ALREADY_EXISTS),
                Map.entry(new ConflictException(ConflictException.Reason.IN_USE, "x"), ProblemType.IN_USE),
                Map.entry(new ConflictException(ConflictException.Reason.STATE_ID_TAKEN, "x"), ProblemType.STATE_ID_TAKEN),
                Map.entry(new ConflictException(ConflictException.Reason.RUN_ACTIVE, "x"), ProblemType.RUN_ACTIVE),
                Map.entry(new ConflictException(ConflictException.Reason.INVALID_TRANSITION, "x"), ProblemType.INVALID_TRANSITION),
                Map.entry(new ConflictException(ConflictException.Reason.STATE_CONFLICT, "x"), ProblemType.STATE_CONFLICT),
                Map.entry(new ConflictException(ConflictException.Reason.NO_CATALOG, "x"), ProblemType.NO_CATALOG),
                Map.entry(new VersionMismatchException("changed", "\"3\""), ProblemType.PRECONDITION_FAILED),
                Map.entry(new UnprocessableException("no such loader"), ProblemType.UNPROCESSABLE),
                Map.entry(new LimitExceededException(LimitExceededException.Limit.CONCURRENCY, "x"), ProblemType.TOO_MANY_REQUESTS),
                Map.entry(new LimitExceededException(LimitExceededException.Limit.SIZE, "x"), ProblemType.PAYLOAD_TOO_LARGE),
                Map.entry(new UnavailableException("The database is unavailable; retry later."), ProblemType.UNAVAILABLE),
                Map.entry(new ConnectorFailedException("tap-x --discover exited 1"), ProblemType.CONNECTOR_FAILED));
        for (Map.Entry<DomainException, ProblemType> e : expected.entrySet()) {
            assertEquals(e.getValue(), ProblemMappers.typeOf(e.getKey()), e.getKey().getClass().getSimpleName());
        }
        // every permitted kind and every conflict reason is covered above, so a new one needs a mapping and a row
        Set<Class<?>> kinds = new java.util.HashSet<>();
        Set<ConflictException.Reason> reasons = EnumSet.noneOf(ConflictException.Reason.class);
        for (DomainException e : expected.keySet()) {
            kinds.add(e.getClass());
            if (e instanceof ConflictException c) {
                reasons.add(c.reason());
            }
        }
        assertEquals(Set.of(DomainException.class.getPermittedSubclasses()), kinds);
        assertEquals(EnumSet.allOf(ConflictException.Reason.class), reasons);
    }

    @Test
    void aDomainErrorBecomesAProblemWithItsDetailFieldsAndFacts() {
        DomainException e = new ConflictException(ConflictException.Reason.RUN_ACTIVE,
                "A run of state ID 'dev:tap-to-target' is already running.").with("activeRunId", "01a2");
        var r = new ProblemMappers().domain(e, null);
        assertEquals(409, r.getStatus());
        Problem p = (Problem) r.getEntity();
        assertEquals("urn:tapline:problem:run-active", p.type());
        assertEquals("A run of state ID 'dev:tap-to-target' is already running.", p.detail());
        assertEquals(Map.of("activeRunId", "01a2"), p.any());
        assertNull(p.errors());

        Problem invalid = (Problem) new ProblemMappers().domain(InvalidInputException.field("schedule.interval",
                "is not a cron expression"), null).getEntity();
        assertEquals(400, invalid.status());
        assertEquals("schedule.interval: is not a cron expression", invalid.detail());
        assertEquals(List.of(new Problem.FieldError("schedule.interval", "is not a cron expression")), invalid.errors());

        List<Problem.FieldError> references = List.of(new Problem.FieldError("loader", "no loader named 'x' exists"),
                new Problem.FieldError("mappers[0]", "no mapper named 'm' exists"));
        Problem unprocessable = (Problem) new ProblemMappers().domain(new UnprocessableException(
                "2 fields are invalid: loader, mappers[0].", references), null).getEntity();
        assertEquals(422, unprocessable.status());
        assertEquals(references, unprocessable.errors());
        assertNull(((Problem) new ProblemMappers().domain(new UnprocessableException("no such loader"), null)
                .getEntity()).errors());

        var tooLarge = new ProblemMappers().domain(new LimitExceededException(LimitExceededException.Limit.SIZE, "big"), null);
        assertEquals(413, tooLarge.getStatus());
        assertEquals("close", tooLarge.getHeaderString("Connection"));
    }

    @Test
    void aDomainErrorWrappedByAnotherLayerIsStillItsProblem() {
        var r = new ProblemMappers().any(new RuntimeException("tx", new NotFoundException("Run", "42")), null);
        assertEquals(404, r.getStatus());
        assertEquals("Run '42' does not exist.", ((Problem) r.getEntity()).detail());
    }

    @Test
    void docsProblemsListsExactlyTheProblemTypesWithTheirStatus() throws IOException {
        String doc = Files.readString(Path.of("docs/problems.md"));
        Matcher m = Pattern.compile("^\\| `(urn:tapline:problem:[a-z-]+)` \\| ([0-9]{3})", Pattern.MULTILINE).matcher(doc);
        Set<String> documented = new TreeSet<>();
        List<String> wrongStatus = new ArrayList<>();
        while (m.find()) {
            documented.add(m.group(1));
            for (ProblemType t : ProblemType.values()) {
                if (t.uri().equals(m.group(1)) && t.status() != Integer.parseInt(m.group(2))
                        && !(t == ProblemType.REQUEST_TOO_LARGE)) {
                    wrongStatus.add(t.uri() + " documented " + m.group(2) + ", answers " + t.status());
                }
            }
        }
        Set<String> catalogue = new TreeSet<>();
        for (ProblemType t : ProblemType.values()) {
            catalogue.add(t.uri());
        }
        assertEquals(catalogue, documented, "docs/problems.md rows vs ProblemType");
        assertTrue(wrongStatus.isEmpty(), String.join("\n", wrongStatus));
    }
}

package io.tapline.run;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every write of {@code pipeline_run} is {@link RunRepository}'s, and every one of its updates that
 * changes a status carries a {@code status in (:from)} guard bound from {@link RunStatus}'s
 * transition table ({@link RunStatus#allowedFrom}); read from the main sources, so a new status
 * write that bypasses the table fails here.
 */
class RunStatusGuardsTest {

    private static final Path MAIN = Path.of("src/main/java");
    private static final Path OWNER = MAIN.resolve("io/tapline/run/RunRepository.java");
    /** A Java text block or string literal. */
    private static final Pattern LITERAL = Pattern.compile("\"\"\"(.*?)\"\"\"|\"((?:[^\"\\\\\\n]|\\\\.)*)\"",
            Pattern.DOTALL);
    private static final Pattern WRITE = Pattern.compile("(?is)\\b(insert\\s+into|update)\\s+pipeline_run\\b");
    private static final Pattern SETS_STATUS = Pattern.compile("(?is)\\bset\\s+(?:[a-z_]+\\s*=.*?,\\s*)*?status\\s*=");

    @Test
    void allowedFromIsTheTransitionTable() {
        for (RunStatus next : RunStatus.values()) {
            Set<RunStatus> sources = EnumSet.noneOf(RunStatus.class);
            for (RunStatus from : RunStatus.values()) {
                if (from.canMoveTo(next)) {
                    sources.add(from);
                    assertEquals(List.of(from.name()), RunStatus.allowedFrom(next, Set.of(from)));
                } else {
                    assertThrows(IllegalArgumentException.class, () -> RunStatus.allowedFrom(next, Set.of(from)));
                }
            }
            assertEquals(sources, RunStatus.sourcesOf(next));
        }
        assertEquals(List.of("QUEUED"), RunStatus.allowedFrom(RunStatus.RUNNING));
        assertEquals(List.of("QUEUED", "RUNNING"), RunStatus.allowedFrom(RunStatus.FAILED));
    }

    @Test
    void onlyRunRepositoryWritesRunRows() throws IOException {
        List<String> writers = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (!f.equals(OWNER) && literals(Files.readString(f)).stream().anyMatch(l -> WRITE.matcher(l).find())) {
                    writers.add(MAIN.relativize(f).toString());
                }
            }
        }
        assertEquals(List.of(), writers);
    }

    @Test
    void everyStatusChangeIsGuardedByTheTable() throws IOException {
        String source = Files.readString(OWNER);
        List<String> changes = literals(source).stream()
                .filter(l -> WRITE.matcher(l).find() && SETS_STATUS.matcher(l).find()).toList();
        // claimDue, claim, end
        assertEquals(3, changes.size(), String.join("\n---\n", changes));
        for (String sql : changes) {
            assertTrue(sql.contains("status in (:from)"), "no table guard in:\n" + sql);
            assertFalse(Pattern.compile("(?i)\\b(?:where|and)\\s+(?:r\\.)?status\\s*=\\s*:").matcher(sql).find(),
                    "a status guard not from the table in:\n" + sql);
        }
        Matcher bound = Pattern.compile("setParameter\\(\"from\",\\s*([^)]*\\)?)").matcher(source);
        int bindings = 0;
        while (bound.find()) {
            bindings++;
            String value = bound.group(1);
            assertTrue(value.startsWith("RunStatus.allowedFrom(") || value.equals("from)"), value);
        }
        assertEquals(changes.size(), bindings);
        assertTrue(source.contains("List<String> from = RunStatus.allowedFrom("));
    }

    private static List<String> literals(String source) {
        List<String> out = new ArrayList<>();
        Matcher m = LITERAL.matcher(source);
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out;
    }
}

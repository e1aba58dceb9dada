package io.tapline.state.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.common.api.Page;
import io.tapline.state.store.StateHistoryRepository;
import io.tapline.state.store.StateRepository;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link HistoryJson} writes the bytes the REST layer writes for a {@code Page<HistoryEntry>}, both
 * when it loads entries in batches and when it copies large sides token by token.
 */
@QuarkusTest
class HistoryJsonTest {

    @Inject
    ObjectMapper mapper;

    private static final String[] SIDES = {
        "{\"singer_state\": {\"bookmarks\": {\"a\": {\"lsn\": 12345678901234567890123, \"at\": \"2024-01-05T12:00:00Z\"}}}}",
        "{\"singer_state\": {\"x\": [1, 2.5, 100.0, 1e+16, -0.0, NaN, Infinity, -Infinity, null, true, false, \"\\u00e9\\n\"],"
                + " \"nested\": {\"deep\": [[{}], [], {\"k\": {\"v\": 0.1}}]}}}",
        "{}",
        "{\"singer_state\": {\"a\": 1, \"a\": 2}}", // a repeated key: the tree keeps the last value
        "not json at all",                          // shown as text
        "[1, 2, {\"a\": 3}]",
    };

    @Test
    void aPageIsWrittenAsThePageRecordWouldBeWrittenWhateverTheSizes() throws Exception {
        List<StateRepository.Version> rows = new ArrayList<>();
        OffsetDateTime at = OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 678_000_000, ZoneOffset.UTC);
        long version = 40;
        for (String before : SIDES) {
            for (String after : SIDES) {
                rows.add(new StateRepository.Version(version, version % 2 == 0 ? "RUN" : "STATE_EDIT", "set", "ada",
                        version % 2 == 0 ? UUID.nameUUIDFromBytes(new byte[] {(byte) version}) : null, before, "{}", after,
                        after.equals("{}") ? "{\"singer_state\": {\"p\": 1}}" : "{}", at.plusSeconds(version)));
                version--;
            }
        }
        rows.add(new StateRepository.Version(1, "STATE_EDIT", "clear", "bob", null, SIDES[0], "{}", null, null, at));
        List<long[]> sizes = new ArrayList<>();
        for (StateRepository.Version v : rows) {
            sizes.add(new long[] {v.version(), 10});
        }
        for (int limit : new int[] {rows.size() - 1, rows.size(), 3}) {
            List<StateRepository.Version> fetched = rows.subList(0, Math.min(limit + 1, rows.size()));
            String expected = mapper.writeValueAsString(Page.of(fetched, limit, v -> Long.toString(v.version()),
                    StateResource::history));
            List<long[]> page = sizes.subList(0, fetched.size());
            // every entry side by side, every side copied; batches of two; all at once
            for (long largeBytes : new long[] {5, 25, 1 << 20}) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                boolean[] closed = new boolean[1];
                HistoryJson.write(page, limit, source(rows), mapper, largeBytes, new java.io.FilterOutputStream(out) {
                    @Override
                    public void close() {
                        closed[0] = true;
                    }
                });
                assertEquals(expected, out.toString(StandardCharsets.UTF_8), "limit " + limit + ", large " + largeBytes);
                // the REST layer flushes and closes the response stream after the body (a closed one fails its flush)
                assertEquals(false, closed[0], "the response stream is left open");
            }
        }
    }

    /** The entries of {@code rows} as the repository gives them. */
    private static HistoryJson.Source source(List<StateRepository.Version> rows) {
        return new HistoryJson.Source() {
            @Override
            public List<StateRepository.Version> entries(long below, int n) {
                return rows.stream().filter(v -> v.version() < below).limit(n).toList();
            }

            @Override
            public java.util.Optional<StateRepository.Version> head(long version) {
                return rows.stream().filter(v -> v.version() == version).findFirst().map(v -> new StateRepository.Version(
                        v.version(), v.source(), v.action(), v.actor(), v.runId(), mark(v.completedBefore()),
                        mark(v.partialBefore()), mark(v.completedAfter()), mark(v.partialAfter()), v.createdAt()));
            }

            @Override
            public String side(long version, StateHistoryRepository.Side side) {
                StateRepository.Version v = rows.stream().filter(x -> x.version() == version).findFirst().orElseThrow();
                return switch (side) {
                    case COMPLETED_BEFORE -> v.completedBefore();
                    case PARTIAL_BEFORE -> v.partialBefore();
                    case COMPLETED_AFTER -> v.completedAfter();
                    case PARTIAL_AFTER -> v.partialAfter();
                };
            }
        };
    }

    private static String mark(String text) {
        return text == null ? null : "";
    }
}

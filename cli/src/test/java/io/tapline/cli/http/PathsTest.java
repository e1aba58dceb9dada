package io.tapline.cli.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A name never changes the path or the query it is put into. */
class PathsTest {

    @Test
    void stateIdsKeepTheirColonsAndEverythingElseIsEscaped() {
        assertEquals("dev:tap-csv-to-target-jsonl", Paths.seg("dev:tap-csv-to-target-jsonl"));
        assertEquals("a%2Fb%3Fc%23d%25e%3Bf%20g", Paths.seg("a/b?c#d%e;f g"));
        assertEquals("caf%C3%A9", Paths.seg("café"));
        assertEquals("a%26b%3Dc%2Bd", Paths.query("a&b=c+d"));
    }

    @Test
    void aBaseUrlLosesItsTrailingSlashAndKeepsItsPath() {
        assertEquals("http://localhost:8080", Api.parseBase("http://localhost:8080/", "test").toString());
        assertEquals("https://example.com/tapline", Api.parseBase(" https://example.com/tapline// ", "test").toString());
    }
}

package io.tapline.common.api;

import io.tapline.common.error.VersionMismatchException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ETags#expectedVersion} reads {@code If-Match} as the former string check did: absent,
 * blank and {@code *} pass, tags compare strongly and one of a list must match, anything else is a
 * 412 quoting the header and naming the current ETag.
 */
class ExpectedVersionTest {

    @Test
    void anAbsentOrBlankHeaderIsNoPrecondition() {
        assertSame(ExpectedVersion.none(), ETags.expectedVersion(null));
        assertSame(ExpectedVersion.none(), ETags.expectedVersion("  "));
        assertFalse(ExpectedVersion.none().sent());
        ExpectedVersion.none().check(7);
    }

    @Test
    void aStarMatchesEveryVersionButIsSent() {
        ExpectedVersion any = ETags.expectedVersion(" * ");
        assertTrue(any.sent());
        assertTrue(any.isAny());
        any.check(0);
        any.check(42);
    }

    @Test
    void quotedAndBareTagsAndListsMatchTheirVersions() {
        ETags.expectedVersion("\"3\"").check(3);
        ETags.expectedVersion("3").check(3);
        ETags.expectedVersion("\"1\", \"3\"").check(3);
        assertTrue(ETags.expectedVersion("\"0\"").matches(0));
    }

    @Test
    void weakMalformedAndNonCanonicalTagsNeverMatch() {
        for (String header : new String[] {"W/\"3\"", "\"abc\"", "\"03\"", "\"+3\"", "\"3", "\"1\", *", "\"\""}) {
            ExpectedVersion e = ETags.expectedVersion(header);
            assertTrue(e.sent(), header);
            assertFalse(e.isAny(), header);
            assertFalse(e.matches(3), header);
        }
    }

    @Test
    void aMismatchIsA412QuotingTheHeaderAndTheCurrentETag() {
        VersionMismatchException e = assertThrows(VersionMismatchException.class,
                () -> ETags.expectedVersion("  \"2\" ").check(5));
        assertEquals("If-Match \"2\" does not match the current ETag \"5\"; read the resource again and retry.",
                e.getMessage());
        assertEquals("\"5\"", e.currentTag());
    }

    @Test
    void ofExpectsExactlyOneVersion() {
        assertTrue(ExpectedVersion.of(4).matches(4));
        assertFalse(ExpectedVersion.of(4).matches(5));
        assertThrows(VersionMismatchException.class, () -> ExpectedVersion.of(4).check(5));
    }
}

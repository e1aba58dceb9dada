package io.tapline.plugin.install;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UrlCredentialsTest {

    @Test
    void literalCredentialsAreMaskedAndReferencesAndTheGitUserAreKept() {
        assertEquals("git+https://ci:********@h/x.git", PipUrl.masked("git+https://ci:glpat-1@h/x.git"));
        assertEquals("git+https://********@github.com/a/b.git", PipUrl.masked("git+https://ghp_abc123@github.com/a/b.git"));
        assertEquals("git+ssh://git@github.com/a/b.git", PipUrl.masked("git+ssh://git@github.com/a/b.git"));
        assertEquals("git+https://ci:${secret:gh}@h/x.git", PipUrl.masked("git+https://ci:${secret:gh}@h/x.git"));
        assertEquals("git+https://$GITHUB_TOKEN@h/x.git", PipUrl.masked("git+https://$GITHUB_TOKEN@h/x.git"));
        assertEquals("tap-x==1.2 pkg@https://u:********@idx/p.whl",
                PipUrl.masked("tap-x==1.2 pkg@https://u:p4ss@idx/p.whl"));
        assertTrue(PipUrl.hasCredential("git+https://ci:glpat-1@h/x.git"));
        assertFalse(PipUrl.hasCredential("git+https://ci:${secret:gh}@h/x.git"));
        assertFalse(PipUrl.hasCredential(null));
    }

    @Test
    void theMaskSentBackKeepsTheStoredPipUrlOnlyWhenItIsItsMaskedForm() {
        String stored = "git+https://ci:glpat-1@h/x.git";
        assertEquals(stored, PipUrl.unmasked("git+https://ci:********@h/x.git", stored));
        assertEquals("tap-x==2", PipUrl.unmasked("tap-x==2", stored));
        assertThrows(IllegalArgumentException.class, () -> PipUrl.unmasked("git+https://ci:********@evil/x.git", stored));
        assertThrows(IllegalArgumentException.class, () -> PipUrl.unmasked("git+https://********@h/x.git", null));
    }

    @Test
    void referencesResolveInsideOneWordAndCannotBecomeAnOption() {
        PipUrl url = PipUrl.parse("-e git+https://ci:${secret:t}@h/x.git tap-y==1").pipUrl();
        assertTrue(url.hasReferences());
        assertEquals(List.of("-e", "git+https://ci:a b@h/x.git", "tap-y==1"),
                url.resolved(w -> w.replace("${secret:t}", "a b")).words());
        PipUrl whole = PipUrl.parse("${X}").pipUrl();
        assertThrows(IllegalArgumentException.class, () -> whole.resolved(w -> "--index-url=http://evil"));
        assertThrows(IllegalArgumentException.class, () -> whole.resolved(w -> ""));
    }
}

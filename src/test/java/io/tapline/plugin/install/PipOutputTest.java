package io.tapline.plugin.install;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reasons made from pip's output, and masked credentials. */
class PipOutputTest {

    @Test
    void unknownPackageSaysSoInOneSentenceWithPipsLines() {
        assertEquals("pip found no distribution matching 'tap-nope==9.9' (unknown package name or version on the"
                        + " configured index): ERROR: Could not find a version that satisfies the requirement"
                        + " tap-nope==9.9 (from versions: none) / ERROR: No matching distribution found for tap-nope==9.9",
                PipOutput.reason(List.of("Looking in indexes: https://pypi.org/simple",
                        "ERROR: Could not find a version that satisfies the requirement tap-nope==9.9 (from versions: none)",
                        "ERROR: No matching distribution found for tap-nope==9.9"), 1));
    }

    @Test
    void noNetworkSaysSo() {
        String r = PipOutput.reason(List.of(
                "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection"
                        + " broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object>: Failed"
                        + " to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/tap-x/",
                "ERROR: Could not find a version that satisfies the requirement tap-x (from versions: none)",
                "ERROR: No matching distribution found for tap-x"), 1);
        assertEquals("pip could not reach the package index (no network, or the index or proxy must be set with"
                + " tapline.plugins.pip-args or PIP_INDEX_URL): ERROR: Could not find a version that satisfies the"
                + " requirement tap-x (from versions: none) / ERROR: No matching distribution found for tap-x", r);
    }

    @Test
    void aGitRequirementThatCannotBeFetchedSaysSoWithGitsOwnError() {
        // regression: reported as "pip could not reach the package index" with only
        // "error: subprocess-exited-with-error" twice; git's fatal line was in the log only
        String r = PipOutput.reason(List.of(
                "Collecting git+https://github.com/MeltanoLabs/tap-csv.git@v1.2.0",
                "  Cloning https://github.com/MeltanoLabs/tap-csv.git (to revision v1.2.0) to /tmp/pip-req-build-x",
                "  fatal: unable to access 'https://github.com/MeltanoLabs/tap-csv.git/': Could not resolve host: github.com",
                "  error: subprocess-exited-with-error",
                "error: subprocess-exited-with-error"), 1);
        assertEquals("git could not fetch a requirement of the pip_url (no network, or its host is not reachable from"
                + " this replica): fatal: unable to access 'https://github.com/MeltanoLabs/tap-csv.git/': Could not"
                + " resolve host: github.com / error: subprocess-exited-with-error", r);
    }

    /**
     * Regression (issue 26 item 9): pip's own output (pip 23) when an isolated build of a local
     * source tree cannot get setuptools offline was reported as an unknown package.
     */
    @Test
    void anIsolatedBuildWithoutSetuptoolsNamesBuildIsolationNotAnUnknownPackage() {
        List<String> pip = List.of(
                "Processing /srv/tap-x",
                "  Installing build dependencies: started",
                "  Installing build dependencies: finished with status 'error'",
                "  error: subprocess-exited-with-error",
                "  ",
                "  × pip subprocess to install build dependencies did not run successfully.",
                "  │ exit code: 1",
                "  ╰─> [2 lines of output]",
                "      ERROR: Could not find a version that satisfies the requirement setuptools>=40.8.0 (from versions: none)",
                "      ERROR: No matching distribution found for setuptools>=40.8.0",
                "      [end of output]",
                "  ",
                "  note: This error originates from a subprocess, and is likely not a problem with pip.",
                "error: subprocess-exited-with-error");
        assertTrue(PipOutput.buildRequirementsMissing(pip));
        assertEquals("build isolation: pip could not install the build requirements of a source tree or sdist (no"
                + " distribution of 'setuptools>=40.8.0' on the index or in the wheelhouses); offline, put wheels of"
                + " setuptools and wheel (and of any other build backend) into a directory of"
                + " tapline.plugins.find-links, or set tapline.plugins.build-isolation to auto or off to build with"
                + " the setuptools and wheel of the wheelhouses or of the plugin's python: ERROR: Could not find a"
                + " version that satisfies the requirement setuptools>=40.8.0 (from versions: none) / ERROR: No"
                + " matching distribution found for setuptools>=40.8.0 / error: subprocess-exited-with-error",
                PipOutput.reason(pip, 1));
        assertFalse(PipOutput.buildRequirementsMissing(List.of(
                "ERROR: Could not find a version that satisfies the requirement tap-nope (from versions: none)",
                "ERROR: No matching distribution found for tap-nope")), "an unknown package stays one");
    }

    @Test
    void uvsBuildRequirementsFailureIsRecognisedToo() {
        assertTrue(PipOutput.buildRequirementsMissing(List.of(
                "  × Failed to build `tap-x @ file:///srv/tap-x`",
                "  ├─▶ Failed to resolve requirements from `build-system.requires`",
                "  ├─▶ No solution found when resolving: `setuptools>=40.8.0`",
                "  ╰─▶ Because setuptools was not found in the provided package locations and you require"
                        + " setuptools>=40.8.0, we can conclude that your requirements are unsatisfiable.")));
    }

    @Test
    void otherFailuresKeepPipsLastErrorLines() {
        assertEquals("pip install failed (exit code 1): ERROR: Directory '/nowhere' is not installable. Neither"
                        + " 'setup.py' nor 'pyproject.toml' found.",
                PipOutput.reason(List.of("ERROR: Directory '/nowhere' is not installable. Neither 'setup.py' nor"
                        + " 'pyproject.toml' found."), 1));
    }

    @Test
    void masksUrlCredentials() {
        assertEquals("Collecting git+https://oauth2:********@gitlab.example/tap.git and https://********@host/x",
                PipOutput.mask("Collecting git+https://oauth2:glpat-secret@gitlab.example/tap.git and"
                        + " https://ghp_token@host/x"));
    }
}

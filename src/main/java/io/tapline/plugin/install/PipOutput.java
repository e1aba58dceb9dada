package io.tapline.plugin.install;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads pip's output: masks credentials in URLs, and turns the last lines of a failed install into
 * one readable reason (a VCS fetch, build requirements an isolated build could not get, no network,
 * unknown package, else pip's own {@code ERROR:} lines).
 */
public final class PipOutput {

    /** Longest reason, in characters. */
    static final int MAX_REASON = 1000;
    private static final Pattern NETWORK = Pattern.compile("(?i)NewConnectionError|Failed to establish a new connection"
            + "|Temporary failure in name resolution|Name or service not known|Network is unreachable"
            + "|ConnectTimeoutError|Connection refused|ProxyError|Could not fetch URL|Max retries exceeded"
            + "|Could not resolve host|unable to access '");
    private static final Pattern NO_MATCH = Pattern.compile("No matching distribution found for (\\S+)");
    private static final Pattern UV_NO_MATCH = Pattern.compile("Because (\\S+) was not found in the (package registry"
            + "|provided package locations)");
    /**
     * pip ({@code pip subprocess to install build dependencies did not run successfully}, pip 22 and
     * later) and uv ({@code Failed to resolve requirements from `build-system.requires`} or
     * {@code `setup.py` build}) failing to install an isolated build's requirements.
     */
    private static final Pattern BUILD_REQUIREMENTS = Pattern.compile("pip subprocess to install build dependencies did"
            + " not run successfully|Installing build dependencies(: finished with status|\\.\\.\\.) ?'?error"
            + "|Failed to (resolve|install) requirements from `(build-system\\.requires|setup\\.py` build)");

    private PipOutput() {
    }

    /** {@code https://user:secret@host} becomes {@code https://user:********@host}; a lone token is masked too ({@link UrlCredentials}). */
    public static String mask(String line) {
        return UrlCredentials.mask(line);
    }

    /**
     * Whether a failed install's output shows that an isolated build (pip's or uv's build isolation
     * of a source tree or sdist) could not install its build requirements: no index reachable, or
     * neither the index nor the wheelhouses has them (typically setuptools and wheel offline).
     *
     * @param tail the last output lines, oldest first
     */
    public static boolean buildRequirementsMissing(List<String> tail) {
        return tail.stream().anyMatch(l -> BUILD_REQUIREMENTS.matcher(l).find());
    }

    /**
     * The reason of a failed install, in one sentence plus pip's last error lines.
     *
     * @param tail pip's last output lines (masked), oldest first
     * @param exitCode pip's exit code
     */
    public static String reason(List<String> tail, int exitCode) {
        List<String> errors = new ArrayList<>();
        List<String> vcs = new ArrayList<>();
        boolean network = false;
        String missing = null;
        for (String l : tail) {
            String t = l.strip();
            if (NETWORK.matcher(t).find()) {
                network = true;
            }
            Matcher nm = NO_MATCH.matcher(t);
            if (nm.find()) {
                missing = nm.group(1);
            }
            Matcher um = UV_NO_MATCH.matcher(t);
            if (um.find()) {
                missing = um.group(1);
            }
            if (t.startsWith("fatal:")) {
                vcs.add(t);
            }
            if (t.startsWith("ERROR:") || t.startsWith("error:")) {
                errors.add(t);
            }
        }
        // git's own error (a git+https:// requirement) says more than pip's "subprocess-exited-with-error"
        String last = vcs.isEmpty() ? lastLines(errors.isEmpty() ? nonBlank(tail) : errors, 3)
                : lastLines(vcs, 1) + (errors.isEmpty() ? "" : " / " + lastLines(errors, 1));
        String sentence;
        if (!vcs.isEmpty()) {
            sentence = "git could not fetch a requirement of the pip_url" + (network ? " (no network, or its host is"
                    + " not reachable from this replica)" : "");
        } else if (buildRequirementsMissing(tail)) {
            sentence = "build isolation: pip could not install the build requirements of a source tree or sdist ("
                    + (missing != null ? "no distribution of '" + missing + "'" : "see pip's lines")
                    + (network ? "; no index reachable" : " on the index or in the wheelhouses") + "); offline, put"
                    + " wheels of setuptools and wheel (and of any other build backend) into a directory of"
                    + " tapline.plugins.find-links, or set tapline.plugins.build-isolation to auto or off to build"
                    + " with the setuptools and wheel of the wheelhouses or of the plugin's python";
        } else if (network) {
            sentence = "pip could not reach the package index (no network, or the index or proxy must be set with"
                    + " tapline.plugins.pip-args or PIP_INDEX_URL)";
        } else if (missing != null) {
            sentence = "pip found no distribution matching '" + missing + "' (unknown package name or version on the"
                    + " configured index)";
        } else if (exitCode > 128 && errors.isEmpty()) {
            sentence = "pip was killed by signal " + (exitCode - 128) + " before it finished";
        } else {
            sentence = "pip install failed (exit code " + exitCode + ")";
        }
        String r = last.isEmpty() ? sentence : sentence + ": " + last;
        return r.length() > MAX_REASON ? r.substring(0, MAX_REASON - 3) + "..." : r;
    }

    private static List<String> nonBlank(List<String> lines) {
        return lines.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    private static String lastLines(List<String> lines, int n) {
        return String.join(" / ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }
}

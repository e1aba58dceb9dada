package io.tapline.support;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.util.Map;
import java.util.TreeMap;

/**
 * Says at the end of a test JVM which tests did not run and why: a test aborted by an assumption
 * (for example "chromium and chromium-driver are not installed") is counted by Maven only as
 * "Skipped", which reads like success. Prints one line per reason and the tests it skipped, on
 * standard error, so a green build on a machine without a test's packages says what it left out.
 * Registered through {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}.
 */
public final class SkippedTestsSummary implements TestExecutionListener {

    private final Map<String, TreeMap<String, Boolean>> byReason = new TreeMap<>();

    @Override
    public synchronized void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            String reason = result.getThrowable().map(Throwable::getMessage).filter(m -> m != null && !m.isBlank())
                    .map(m -> m.replaceFirst("^Assumption failed: ", "")).orElse("an assumption did not hold");
            byReason.computeIfAbsent(reason, r -> new TreeMap<>()).put(name(test), true);
        }
    }

    @Override
    public synchronized void executionSkipped(TestIdentifier test, String reason) {
        if (reason != null && !reason.isBlank() && !reason.startsWith("@Disabled")
                && !reason.contains("evaluated to false") && !reason.contains("is disabled")) {
            byReason.computeIfAbsent(reason, r -> new TreeMap<>()).put(name(test), true);
        }
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        byReason.forEach((reason, tests) -> System.err.printf("[SKIPPED] %d test(s) did not run: %s: %s%n",
                tests.size(), reason, String.join(", ", tests.keySet())));
    }

    private static String name(TestIdentifier test) {
        String id = test.getUniqueId();
        int cls = id.indexOf("[class:");
        String className = cls < 0 ? "" : id.substring(cls + 7, id.indexOf(']', cls));
        String simple = className.substring(className.lastIndexOf('.') + 1);
        return simple.isEmpty() ? test.getDisplayName() : simple + "." + test.getDisplayName().replaceFirst("\\(.*\\)$", "");
    }
}

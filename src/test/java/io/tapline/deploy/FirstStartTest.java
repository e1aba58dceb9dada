package io.tapline.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's first start, {@code ./mvnw quarkus:dev} on a fresh clone, asks no question. */
class FirstStartTest {

    @Test
    void theBuildAnswersQuarkusAnalyticsPromptItself() throws Exception {
        // Maven reads .mvn/maven.config on every run of ./mvnw; the Quarkus build reads this system property.
        String mavenConfig = Files.readString(Path.of(".mvn/maven.config"));
        assertTrue(mavenConfig.lines().anyMatch(l -> l.trim().equals("-Dquarkus.analytics.disabled=true")), mavenConfig);
        String readme = Files.readString(Path.of("README.md"));
        assertFalse(readme.contains("answer, or add `-Dquarkus.analytics.disabled=true`"),
                "the README no longer asks the reader to answer the prompt");
    }

    @Test
    void theReadmeListsEachSettingOnceAndNeedsNoSkipItsFlag() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        assertTrue(readme.lines().filter(l -> l.startsWith("| `tapline.secrets.dir` |")).count() == 1,
                "tapline.secrets.dir is listed once");
        assertFalse(readme.contains("-DskipITs=false"), "ITs run in verify by default (pom.xml skipITs=false)");
    }
}

package io.tapline.project.meltano;

import io.tapline.common.error.DomainException;
import io.tapline.common.error.ProblemMappers;
import io.tapline.common.error.ProblemType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 item 5: one large scalar referenced many times passes the alias limit (aliases of
 * scalars are not counted by SnakeYAML) and the node limit, yet expands to tens of megabytes; the
 * expanded-size limit refuses it while reading, before anything is built from it.
 */
class YamlExpansionLimitTest {

    private static final MeltanoYaml.Limits LIMITS = new MeltanoYaml.Limits(1 << 20, 50, 50, 200_000);

    @Test
    void aLargeScalarReferencedManyTimesIsRefused() {
        StringBuilder yaml = new StringBuilder("version: 1\nx: &big \"").append("A".repeat(62 * 1024)).append("\"\n");
        yaml.append("plugins:\n  extractors:\n");
        for (int i = 0; i < 1000; i++) {
            yaml.append("  - {name: tap-").append(i).append(", executable: /bin/true, config: {k: *big}}\n");
        }
        assertTrue(yaml.length() < 200_000, "a small document: " + yaml.length());
        long t0 = System.nanoTime();
        DomainException e = assertThrows(DomainException.class, () -> MeltanoYaml.parse(yaml.toString(), LIMITS));
        assertEquals(ProblemType.MALFORMED_BODY, ProblemMappers.typeOf(e));
        assertTrue(e.getMessage().contains("expands to more than 2097152 characters once its aliases are resolved"
                + " (tapline.projects.max-expanded-chars)"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "refused quickly");
    }

    @Test
    void aDocumentWithinTheExpandedLimitIsRead() {
        String yaml = "version: 1\nx: &v \"" + "A".repeat(1000) + "\"\nplugins:\n  extractors:\n"
                + "  - {name: tap-a, executable: /bin/true, config: {k: *v, j: *v}}\n";
        MeltanoYaml.Parsed p = MeltanoYaml.parse(yaml, LIMITS);
        assertEquals(1000, p.root().path("plugins").path("extractors").get(0).path("config").path("k").asText().length());
    }
}

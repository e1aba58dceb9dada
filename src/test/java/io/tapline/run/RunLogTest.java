package io.tapline.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run log file on a full disk and at its cap. */
class RunLogTest {

    static boolean devFull() {
        return Files.isWritable(Path.of("/dev/full"));
    }

    @Test
    @EnabledIf("devFull")
    void aFullDiskIsReportedAsSuchAndTheTailKeepsTheLines() throws Exception {
        RunLog log = new RunLog(Path.of("/dev/full"), 1_000_000, 100_000, List.of(), Clock.systemUTC());
        for (int i = 0; i < 400; i++) {
            log.line("extractor", "line " + i + " " + "x".repeat(60));
        }
        log.flush();
        assertTrue(log.writeError() != null && log.writeError().contains("No space left"), log.writeError());
        assertEquals(0, log.droppedLines(), "not counted as lines beyond the cap");
        assertTrue(log.tail().contains("extractor | line 399 "), "the tail keeps every line");
        log.close();
    }

    @Test
    void theFileOnlyEverHoldsWholeLinesAndTheCapIsNamed() throws Exception {
        Path f = Files.createTempFile("run", ".log");
        RunLog log = new RunLog(f, 1000, 100_000, List.of(), Clock.systemUTC());
        for (int i = 0; i < 100; i++) {
            log.line("loader", "line " + i);
        }
        assertNull(log.writeError());
        log.close();
        String text = Files.readString(f);
        assertTrue(text.endsWith("line(s) dropped: the log reached its cap of 1000 bytes\n"), text);
        for (String line : text.split("\n")) {
            assertTrue(line.contains(" loader | line ") || line.startsWith("... "), line);
        }
        assertFalse(text.contains("not written"));
    }
}

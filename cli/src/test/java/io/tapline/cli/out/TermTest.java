package io.tapline.cli.out;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A connector's log line cannot drive the terminal it is printed on. */
class TermTest {

    @Test
    void escapeSequencesAreRemovedAndControlCharactersShown() {
        String plain = "extractor | INFO 5 records\tdone";
        assertSame(plain, Term.printable(plain));
        assertEquals("red text, title, ?bell ?cr", Term.printable("\u001b[31mred\u001b[0m text, \u001b]0;owned\u0007title,"
                + " \u0007bell \rcr"));
        assertEquals("x y", Term.printable("x\u001b]8;;http://evil\u001b\\ y"));
        assertEquals("?", Term.printable("\u009b"));
    }

    @Test
    void tableCellsKeepColoursOnly() {
        assertEquals("\u001b[32mok\u001b[0m x", Term.printable("\u001b[32mok\u001b[0m\u001b[2J x", true));
    }

    @Test
    void widthIgnoresColourCodes() {
        assertEquals(5, Term.width("\u001b[32mgreen\u001b[0m"));
    }
}

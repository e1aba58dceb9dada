package io.tapline.state.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.state.json.PythonJson.Layout;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Round-trip properties of {@link PythonJson} on random trees (see {@link JsonTrees}). */
class PythonJsonPropertyTest {

    @Provide
    Arbitrary<JsonNode> trees() {
        return JsonTrees.trees(4);
    }

    @Property(tries = 500)
    void writeThenParseGivesTheSameTree(@ForAll("trees") JsonNode tree, @ForAll Layout layout) {
        JsonNode back = PythonJson.parse(PythonJson.write(tree, layout));
        assertEquals(tree, back);
        assertEquals(JsonTrees.keyOrder(tree), JsonTrees.keyOrder(back));
    }

    @Property(tries = 500)
    void writeIsAFixedPointOfParse(@ForAll("trees") JsonNode tree, @ForAll Layout layout) {
        String once = PythonJson.write(tree, layout);
        assertEquals(once, PythonJson.write(PythonJson.parse(once), layout));
    }

    @Property(tries = 300)
    void bytesAndTextParseAlike(@ForAll("trees") JsonNode tree) {
        String text = PythonJson.write(tree, Layout.DEFAULT);
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        assertEquals(PythonJson.parse(text), PythonJson.parse(bytes));
        assertEquals(PythonJson.parse(text), PythonJson.parseLenientUtf8(bytes));
    }

    @Property(tries = 500)
    void outputIsPrintableAscii(@ForAll("trees") JsonNode tree, @ForAll Layout layout) {
        String out = PythonJson.write(tree, layout);
        for (int i = 0; i < out.length(); i++) {
            char c = out.charAt(i);
            assertTrue((c >= 0x20 && c < 0x7F) || (c == '\n' && layout == Layout.INDENT2), () -> out);
        }
    }

    @Property(tries = 300)
    void layoutsDifferOnlyInWhitespaceOutsideStrings(@ForAll("trees") JsonNode tree) {
        String compact = PythonJson.write(tree, Layout.COMPACT);
        assertEquals(compact, stripInsignificantWhitespace(PythonJson.write(tree, Layout.DEFAULT)));
        assertEquals(compact, stripInsignificantWhitespace(PythonJson.write(tree, Layout.INDENT2)));
    }

    @Property(tries = 300)
    void rawUtf8InputParsesLikeEscapedInput(@ForAll("trees") JsonNode tree) {
        // Strings written unescaped as UTF-8 (as SDK targets do) give the same tree, provided they
        // hold no lone surrogates (which raw UTF-8 cannot carry) and no control characters.
        String ascii = PythonJson.write(tree, Layout.DEFAULT);
        String raw = unescapeNonAscii(ascii);
        if (raw == null) {
            return;
        }
        assertEquals(tree, PythonJson.parse(raw.getBytes(StandardCharsets.UTF_8)));
        assertEquals(tree, PythonJson.parseLenientUtf8(raw.getBytes(StandardCharsets.UTF_8)));
    }

    /** Replaces \\uXXXX escapes of non-ASCII text by the characters; null if a surrogate is alone. */
    private static String unescapeNonAscii(String json) {
        StringBuilder sb = new StringBuilder(json.length());
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '\\' && json.charAt(i + 1) == 'u') {
                char v = (char) Integer.parseInt(json.substring(i + 2, i + 6), 16);
                if (v >= 0x80) {
                    sb.append(v);
                    i += 5;
                    continue;
                }
            }
            if (c == '\\') {
                sb.append(c).append(json.charAt(i + 1));
                i++;
                continue;
            }
            sb.append(c);
        }
        String s = sb.toString();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return null;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return null;
            }
        }
        return s;
    }

    private static String stripInsignificantWhitespace(String json) {
        StringBuilder sb = new StringBuilder(json.length());
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                sb.append(c);
                if (c == '\\') {
                    sb.append(json.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
                sb.append(c);
            } else if (c != ' ' && c != '\n') {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}

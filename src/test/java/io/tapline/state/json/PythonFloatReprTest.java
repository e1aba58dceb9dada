package io.tapline.state.json;

import com.fasterxml.jackson.databind.node.DoubleNode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PythonJson#repr(double)} against CPython 3.11's {@code json.dumps(float)}. Every expected
 * string here and in {@code python-float-repr.txt} was printed by python3 (the generator script is
 * next to the fixture); no Python is needed to run the tests.
 */
class PythonFloatReprTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            // expected json.dumps output, IEEE-754 bits of the value
            "1e+16, 4341c37937e08000",
            "1e-05, 3ee4f8b588e368f1",
            "1.2345678901234568e+17, 437b69b4ba630f35",
            "100000.0, 40f86a0000000000",
            "0.0001, 3f1a36e2eb1c432d",
            "1.0, 3ff0000000000000",
            "-0.0, 8000000000000000",
            "0.0, 0000000000000000",
            "5e-324, 0000000000000001",
            "-5e-324, 8000000000000001",
            "1.7976931348623157e+308, 7fefffffffffffff",
            "2.2250738585072014e-308, 0010000000000000",
            "0.1, 3fb999999999999a",
            "0.30000000000000004, 3fd3333333333334",
            "0.3333333333333333, 3fd5555555555555",
            "-0.6666666666666666, bfe5555555555555",
            "1000000000000000.0, 430c6bf526340000",
            "9999999999999998.0, 4341c37937e07fff",
            "1e+22, 4480f0cf064dd592",
            "1e+23, 44b52d02c7e14af6",
            "9007199254740992.0, 4340000000000000",
            "1704067200.0, 41d9648020000000",
            "1704067200.123456, 41d964802007e6b4",
            "123.456, 405edd2f1a9fbe77",
            "1.5, 3ff8000000000000",
            "2.5e-05, 3efa36e2eb1c432d",
            "0.001, 3f50624dd2f1a9fc",
            "0.00015000000000000001, 3f23a92a30553262",
            "1.2345678901234568e+16, 4345ee2a2eb5a5c4",
            // powers of two whose shortest repr is the upper neighbour (asymmetric interval)
            "7.120236347223045e-307, 0060000000000000",
            "5.304989477e-315, 0000000040000000",
            "9.223372036854776e+18, 43e0000000000000",
            "4.35, 4011666666666666",
            "1e+100, 54b249ad2594c37d",
            "1.1e-100, 2b2ecbe6c835d281",
            "299792458.0, 41b1de784a000000",
            "6.02214076e+23, 44dfe185ca57c517",
            "NaN, 7ff8000000000000",
            "Infinity, 7ff0000000000000",
            "-Infinity, fff0000000000000",
    })
    void matchesPythonRepr(String expected, String bits) {
        double value = Double.longBitsToDouble(Long.parseUnsignedLong(bits, 16));
        assertEquals(expected, PythonJson.repr(value));
        assertEquals(expected, PythonJson.write(DoubleNode.valueOf(value), PythonJson.Layout.DEFAULT));
    }

    @Test
    void everyNaNPayloadIsWrittenAsNaN() {
        assertEquals("NaN", PythonJson.repr(Double.longBitsToDouble(0x7ff0000000000001L)));
        assertEquals("NaN", PythonJson.repr(Double.longBitsToDouble(0xfff8000000000000L)));
    }

    @Test
    void java17DoubleToStringIsNotAlwaysShortestSoItIsNotUsed() {
        // the reason for computing digits: the JDK prints two digits where one is enough
        assertEquals("4.9E-324", Double.toString(Double.MIN_VALUE));
        assertEquals("5e-324", PythonJson.repr(Double.MIN_VALUE));
        assertEquals("9.999999999999999E22", Double.toString(1e23)); // not even the closest 16 digits
        assertEquals("1e+23", PythonJson.repr(1e23));
    }

    /** All 4600 cases of the CPython fixture, incl. every power of two and random bit patterns. */
    @Test
    void matchesCPythonFixture() throws IOException {
        List<String> failures = new ArrayList<>();
        int cases = 0;
        try (InputStream in = getClass().getResourceAsStream("/python-float-repr.txt")) {
            assertNotNull(in, "python-float-repr.txt on the test classpath");
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int space = line.indexOf(' ');
                double value = Double.longBitsToDouble(Long.parseUnsignedLong(line.substring(0, space), 16));
                String expected = line.substring(space + 1);
                String actual = PythonJson.repr(value);
                cases++;
                if (!expected.equals(actual) && failures.size() < 20) {
                    failures.add(line + " -> " + actual);
                }
            }
        }
        assertTrue(cases >= 4600, "fixture has " + cases + " cases");
        assertEquals(List.of(), failures);
    }

    @Provide
    Arbitrary<Double> anyDouble() {
        return Arbitraries.oneOf(
                Arbitraries.longs().map(Double::longBitsToDouble),
                Arbitraries.doubles(),
                // decimal-looking values around the fixed/scientific switch (1e-5 .. 1e16)
                Combinators.combine(Arbitraries.longs().between(-(1L << 53), 1L << 53),
                        Arbitraries.integers().between(-25, 20)).as((m, e) -> m * Math.pow(10, e)));
    }

    @Property(tries = 2000)
    void reprReadsBackAsTheSameDouble(@ForAll("anyDouble") double value) {
        String text = PythonJson.repr(value);
        if (Double.isNaN(value)) {
            assertEquals("NaN", text);
        } else {
            double back = text.equals("Infinity") ? Double.POSITIVE_INFINITY
                    : text.equals("-Infinity") ? Double.NEGATIVE_INFINITY : Double.parseDouble(text);
            assertEquals(Double.doubleToRawLongBits(value), Double.doubleToRawLongBits(back), text);
        }
    }

    @Property(tries = 2000)
    void reprIsNeverLongerThanJavasDigits(@ForAll("anyDouble") double value) {
        if (!Double.isFinite(value) || value == 0) {
            return;
        }
        assertTrue(significantDigits(PythonJson.repr(value)) <= significantDigits(Double.toString(value)),
                () -> PythonJson.repr(value) + " vs " + value);
    }

    private static int significantDigits(String text) {
        String mantissa = text;
        int e = Math.max(text.indexOf('e'), text.indexOf('E'));
        if (e >= 0) {
            mantissa = text.substring(0, e);
        }
        String digits = mantissa.replace("-", "").replace(".", "");
        digits = digits.replaceFirst("^0+", "").replaceFirst("0+$", "");
        return Math.max(1, digits.length());
    }
}

package io.tapline.cli.out;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code state get --format pretty}: Python's {@code json.dumps(indent=2)} of the compact text (meltano-state.md §8). */
class MeltanoJsonTest {

    @Test
    void indentsAsPythonWithTokensUnchanged() {
        String compact = "{\"singer_state\":{\"x\":\"caf\\u00e9 \\\"q\\\" {[,:]}\",\"f\":1e+16,\"g\":1e-05,"
                + "\"n\":NaN,\"e\":{},\"l\":[],\"a\":[1,[2,{}]],\"z\":null}}";
        assertEquals("""
                {
                  "singer_state": {
                    "x": "caf\\u00e9 \\"q\\" {[,:]}",
                    "f": 1e+16,
                    "g": 1e-05,
                    "n": NaN,
                    "e": {},
                    "l": [],
                    "a": [
                      1,
                      [
                        2,
                        {}
                      ]
                    ],
                    "z": null
                  }
                }""", MeltanoJson.indent(compact));
    }

    @Test
    void anEmptyStateStaysOnOneLine() {
        assertEquals("{}", MeltanoJson.indent("{}"));
        assertEquals("{}", MeltanoJson.indent(" { } "));
    }
}

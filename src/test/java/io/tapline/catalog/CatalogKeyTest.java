package io.tapline.catalog;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CatalogKeyTest {

    private static CatalogKey.Input input(String config, String executable, List<String> caps, String install) {
        ObjectNode c = Jsons.readObject(config);
        return new CatalogKey.Input(executable, List.of("--x"), c, List.of("password"), Map.of("TOKEN", "t0k3n-value"),
                List.of("t0k3n-value"), "tap-csv==1.0", install, caps);
    }

    private static String key(String config) {
        return CatalogKey.of(input(config, "tap-csv", List.of("catalog", "discover"), "fp 1.0"));
    }

    @Test
    void keyOrderAndCapabilityOrderDoNotMatterEveryOtherPartDoes() {
        String k = key("{\"a\": 1, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"s3cret\"}");
        assertTrue(k.matches("[0-9a-f]{64}"), k);
        assertEquals(k, key("{\"password\": \"s3cret\", \"b\": {\"x\": 3, \"y\": 2}, \"a\": 1}"));
        assertEquals(k, CatalogKey.of(input("{\"a\": 1, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"s3cret\"}",
                "tap-csv", List.of("discover", "catalog"), "fp 1.0")));
        assertNotEquals(k, key("{\"a\": 2, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"s3cret\"}"));
        assertNotEquals(k, key("{\"a\": 1, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"other\"}"), "a new secret");
        assertNotEquals(k, CatalogKey.of(input("{\"a\": 1, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"s3cret\"}",
                "/venv/bin/tap-csv", List.of("catalog", "discover"), "fp 1.0")));
        assertNotEquals(k, CatalogKey.of(input("{\"a\": 1, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"s3cret\"}",
                "tap-csv", List.of("catalog", "discover"), "fp 1.1")), "a new installed version");
        assertNotEquals(k, CatalogKey.of(input("{\"a\": 1, \"b\": {\"y\": 2, \"x\": 3}, \"password\": \"s3cret\"}",
                "tap-csv", List.of("catalog", "discover", "state"), "fp 1.0")));
    }

    @Test
    void secretValuesEnterOnlyAsTheirDigest() {
        assertEquals("sha256:" + CatalogKey.sha256("s3cret"), CatalogKey.digest("s3cret"));
        // a secret from ${secret:...} in a non-sensitive field, and in the env: replaced by its digest, so the
        // key is the one of the digest spelled out
        ObjectNode withSecret = Jsons.readObject("{\"url\": \"t0k3n-value\"}");
        ObjectNode withDigest = Jsons.readObject("{\"url\": \"" + CatalogKey.digest("t0k3n-value") + "\"}");
        CatalogKey.Input a = new CatalogKey.Input("t", List.of(), withSecret, List.of(), Map.of(), List.of("t0k3n-value"),
                null, null, List.of());
        CatalogKey.Input b = new CatalogKey.Input("t", List.of(), withDigest, List.of(), Map.of(), List.of(),
                null, null, List.of());
        assertEquals(CatalogKey.of(a), CatalogKey.of(b));
    }
}

package io.tapline.invocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CatalogRulesTest {

    private static ObjectNode catalog() {
        return (ObjectNode) Jsons.read("""
                {"streams":[
                  {"tap_stream_id":"users","schema":{"properties":{"id":{},"email":{},"password":{}}},
                   "metadata":[{"breadcrumb":["properties","id"],"metadata":{"inclusion":"automatic"}}]},
                  {"tap_stream_id":"orders","schema":{"properties":{"id":{},"total":{}}},"metadata":[]},
                  {"tap_stream_id":"audit_log","schema":{"properties":{"id":{}}}}
                ]}""");
    }

    private static JsonNode meta(ObjectNode cat, int stream, String... breadcrumb) {
        for (JsonNode e : cat.get("streams").get(stream).get("metadata")) {
            if (e.get("breadcrumb").size() == breadcrumb.length) {
                boolean same = true;
                for (int i = 0; i < breadcrumb.length; i++) {
                    same &= e.get("breadcrumb").get(i).asText().equals(breadcrumb[i]);
                }
                if (same) {
                    return e.get("metadata");
                }
            }
        }
        return null;
    }

    @Test
    void noPatternsSelectEverything() {
        ObjectNode out = CatalogRules.apply(catalog(), List.of(), Jsons.MAPPER.createObjectNode());
        for (int i = 0; i < 3; i++) {
            assertTrue(meta(out, i).get("selected").asBoolean());
        }
        assertTrue(meta(out, 0, "properties", "email").get("selected").asBoolean());
    }

    @Test
    void includesAndExcludesWithWildcards() {
        ObjectNode out = CatalogRules.apply(catalog(), List.of("users.*", "!users.password", "ord*.total"),
                Jsons.MAPPER.createObjectNode());
        assertTrue(meta(out, 0).get("selected").asBoolean());
        assertTrue(meta(out, 0, "properties", "email").get("selected").asBoolean());
        assertFalse(meta(out, 0, "properties", "password").get("selected").asBoolean());
        assertTrue(meta(out, 0, "properties", "id").get("selected").asBoolean(), "automatic stays selected");
        assertTrue(meta(out, 1).get("selected").asBoolean());
        assertTrue(meta(out, 1, "properties", "total").get("selected").asBoolean());
        assertFalse(meta(out, 1, "properties", "id").get("selected").asBoolean());
        assertFalse(meta(out, 2).get("selected").asBoolean());
    }

    @Test
    void excludingAWholeStream() {
        ObjectNode out = CatalogRules.apply(catalog(), List.of("*.*", "!audit_log.*"), Jsons.MAPPER.createObjectNode());
        assertTrue(meta(out, 0).get("selected").asBoolean());
        assertFalse(meta(out, 2).get("selected").asBoolean());
    }

    @Test
    void metadataRulesSetStreamAndPropertyMetadataWithoutTouchingTheInput() {
        ObjectNode in = catalog();
        String before = in.toString();
        ObjectNode rules = (ObjectNode) Jsons.read("""
                {"user*":{"replication-method":"INCREMENTAL","replication-key":"id","email":{"is-pii":true}}}""");
        ObjectNode out = CatalogRules.apply(in, List.of(), rules);
        assertEquals("INCREMENTAL", meta(out, 0).get("replication-method").asText());
        assertEquals("id", meta(out, 0).get("replication-key").asText());
        assertTrue(meta(out, 0, "properties", "email").get("is-pii").asBoolean());
        assertEquals(null, meta(out, 1).get("replication-method"));
        assertEquals(before, in.toString());
    }

    @Test
    void realDiscoveredCatalogGetsSelection() throws Exception {
        Path p = Path.of("src/test/resources/singer/sdk-tap-sqlite.discovered-catalog.json");
        ObjectNode cat = (ObjectNode) Jsons.read(Files.readString(p));
        ObjectNode out = CatalogRules.apply(cat, List.of("main-orders.*"), Jsons.MAPPER.createObjectNode());
        for (JsonNode s : out.get("streams")) {
            boolean sel = false;
            for (JsonNode e : s.get("metadata")) {
                if (e.get("breadcrumb").isEmpty()) {
                    sel = e.get("metadata").get("selected").asBoolean();
                }
            }
            assertEquals(s.get("tap_stream_id").asText().equals("main-orders"), sel);
        }
    }

    @Test
    void streamLevelRulesAreAlsoWrittenAsTheLegacyKeysClassicTapsRead() {
        // A classic singer-python tap discovers replication_method "" on the stream itself.
        ObjectNode in = (ObjectNode) Jsons.read("""
                {"streams":[
                  {"tap_stream_id":"users","replication_method":"","selected":false,
                   "schema":{"properties":{"id":{},"updated_at":{}}},"metadata":[]},
                  {"tap_stream_id":"orders","replication_method":"FULL_TABLE","schema":{"properties":{"id":{}}}},
                  {"tap_stream_id":"legacy","inclusion":"unsupported","schema":{"properties":{}}}
                ]}""");
        ObjectNode rules = (ObjectNode) Jsons.read("""
                {"users":{"replication-method":"INCREMENTAL","replication-key":"updated_at"},
                 "legacy":{"selected":true}}""");
        ObjectNode out = CatalogRules.apply(in, List.of("users.*", "legacy.*"), rules);
        JsonNode users = out.get("streams").get(0);
        assertEquals("INCREMENTAL", users.get("replication_method").asText());
        assertEquals("updated_at", users.get("replication_key").asText());
        assertTrue(users.get("selected").asBoolean());
        assertEquals("INCREMENTAL", meta(out, 0).get("replication-method").asText());
        assertEquals("automatic", meta(out, 0).get("inclusion").asText(), "a missing stream entry, as Meltano adds it");
        assertEquals("automatic", meta(out, 0, "properties", "updated_at").get("inclusion").asText());
        assertTrue(meta(out, 0, "properties", "updated_at").get("selected").asBoolean());
        JsonNode orders = out.get("streams").get(1);
        assertFalse(orders.get("selected").asBoolean(), "not selected, on the stream too");
        assertEquals("FULL_TABLE", orders.get("replication_method").asText(), "no rule: the discovered value stays");
        assertFalse(orders.has("replication_key"));
        assertFalse(out.get("streams").get(2).has("selected") && out.get("streams").get(2).get("selected").asBoolean(),
                "an unsupported stream is never selected");
        assertEquals("", in.get("streams").get(0).get("replication_method").asText(), "the input is not modified");
    }

    @Test
    void writingTheRuledCatalogStreamByStreamGivesTheBytesOfTheRuledTree() throws Exception {
        ObjectNode withExtras = (ObjectNode) Jsons.read("{\"version\": 2, \"streams\": [" + Jsons.write(catalog().get("streams").get(0))
                + ", 7, " + Jsons.write(catalog().get("streams").get(1)) + "], \"after\": {\"x\": 1.50}}");
        ObjectNode noArray = (ObjectNode) Jsons.read("{\"streams\": {\"a\": 1}}");
        ObjectNode metadata = (ObjectNode) Jsons.read("{\"*\": {\"replication-method\": \"INCREMENTAL\"}}");
        for (ObjectNode cat : List.of(catalog(), withExtras, noArray)) {
            for (List<String> select : List.of(List.<String>of(), List.of("users.*", "!orders.*"), List.of("*.id"))) {
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                CatalogRules.writeApplied(cat, select, metadata, out);
                assertEquals(Jsons.write(CatalogRules.apply(cat, select, metadata)),
                        out.toString(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
    }
}

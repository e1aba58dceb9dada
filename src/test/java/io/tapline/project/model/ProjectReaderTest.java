package io.tapline.project.model;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.Problem;
import io.tapline.common.error.ProblemMappers;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.MeltanoYaml;
import io.tapline.project.model.ProjectModel.PipelineDef;
import io.tapline.project.model.ProjectModel.PluginDef;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** meltano.yml reading without a database: YAML limits, inheritance, overlays, schedules, jobs, errors. */
public class ProjectReaderTest {

    public static final MeltanoYaml.Limits LIMITS = new MeltanoYaml.Limits(1 << 20, 50, 50, 200_000);

    static ProjectModel read(String yaml, String env, Path baseDir) {
        return ProjectReader.read(MeltanoYaml.parse(yaml, LIMITS), env, baseDir);
    }

    public static String resource(String name) throws Exception {
        return Files.readString(Path.of("src/test/resources/meltano", name));
    }

    static PluginDef plugin(ProjectModel m, String name) {
        return m.plugins().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    static PipelineDef pipeline(ProjectModel m, String name) {
        return m.pipelines().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void inheritanceOverlaysAndMappingsForTheDevEnvironment() throws Exception {
        ProjectModel m = read(resource("full-project.meltano.yml"), null, null);
        assertEquals("dev", m.environment());
        assertEquals(List.of("dev", "staging", "prod"), m.environments());
        PluginDef pg = plugin(m, "fp-tap-pg");
        assertEquals("localhost", pg.config().get("host").asText(), "the plugin keeps its base");
        assertEquals("dev-db.internal", pg.overlays().get("dev").config().get("host").asText(), "dev's overlay");
        assertEquals(5432, pg.config().get("port").asInt());
        assertEquals("${PG_PASSWORD}", pg.config().get("password").asText(), "references are kept");
        assertEquals(List.of("public-orders.*"), pg.overlays().get("dev").select(), "an overlay's select");
        assertEquals(List.of("password", "api_token"), pg.sensitive());
        assertEquals("meltanolabs", pg.variant());
        assertEquals("meltanolabs-tap-postgres", pg.pipUrl());
        assertTrue(pg.extras().has("settings") && pg.extras().has("schema"));
        PluginDef eu = plugin(m, "fp-tap-pg-eu");
        assertEquals("fp-tap-pg", eu.inheritFrom());
        assertEquals("/opt/taps/tap-postgres", eu.executable());
        assertEquals("eu-db.internal", eu.config().get("host").asText());
        assertEquals("loader", eu.config().get("user").asText());
        assertEquals(pg.capabilities(), eu.capabilities());
        assertEquals(pg.sensitive(), eu.sensitive());
        PluginDef hide = plugin(m, "fp-hide-secrets");
        assertEquals(PluginType.MAPPERS, hide.type());
        assertEquals("__NULL__", hide.config().at("/stream_maps/public-orders/internal_note").asText());

        PipelineDef daily = pipeline(m, "fp-orders-daily");
        assertEquals("fp-orders-daily", daily.stateId(), "an EL schedule's state ID is its name");
        assertEquals("Europe/Berlin", daily.timezone());
        assertEquals(Map.of("LOG_LEVEL", "debug"), daily.env());
        PipelineDef hourly = pipeline(m, "fp-orders-hourly");
        assertNull(hourly.stateId());
        assertEquals("fp-tap-pg-eu", hourly.extractor());
        assertEquals(List.of("fp-hide-secrets"), hourly.mappers());
        assertEquals("fp-dbt", hourly.transform());
        assertEquals(List.of("build", "--select", "orders"), hourly.transformArgs());
        assertEquals("fp-orders-job", hourly.meltanoJob());
        assertEquals(Map.of("LOG_LEVEL", "debug", "BATCH", "100"), hourly.env());
        PipelineDef manual = pipeline(m, "fp-manual-job");
        assertEquals("@manual", manual.interval());
        assertEquals(3, m.pipelines().size());

        List<String> unsupported = m.unsupported().stream().map(ProjectModel.Unsupported::path).toList();
        assertTrue(unsupported.containsAll(List.of("project_id", "plugins.orchestrators", "schedules[1].start_date",
                "plugins.extractors[0].schema")), unsupported.toString());
        assertTrue(unsupported.stream().noneMatch(u -> u.startsWith("environments[1].config")), unsupported.toString());
    }

    @Test
    void stagingExpandsItsStateIdSuffixFromItsEnv() throws Exception {
        ProjectModel m = read(resource("full-project.meltano.yml"), "staging", null);
        assertEquals("blue", pipeline(m, "fp-orders-hourly").stateIdSuffix());
        assertEquals("staging-db.internal", plugin(m, "fp-tap-pg").overlays().get("staging").config().get("host").asText());
        assertNull(plugin(m, "fp-tap-pg").overlays().get("staging").select(), "staging gives no select");
        assertEquals(List.of("public-orders.*", "!public-orders.internal_note"), plugin(m, "fp-tap-pg").select(),
                "the plugin's own select applies there");
    }

    @Test
    void theSharedFixtureReadsWithoutErrors() throws Exception {
        ProjectModel m = read(resource("meltano-project.meltano.yml"), null, null);
        assertEquals(8, m.plugins().size());
        PluginDef ssa = plugin(m, "tap-ssa-jsonl");
        assertEquals("/usr/local/bin/tap-spreadsheets-anywhere", ssa.executable());
        assertEquals("tap_spreadsheets_anywhere", ssa.namespace());
        assertEquals("events", ssa.config().at("/tables/0/name").asText());
        assertEquals(1, ssa.config().get("tables").size(), "a child's setting replaces the parent's whole");
    }

    @Test
    void errorsNameTheYamlPath() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read("""
                version: 1
                plugins:
                  extractors:
                  - name: tap-a
                  - name: tap-b
                  - name: tap-c
                    select: public-orders.*
                    executable: ./tap.py
                  loaders:
                  - name: Bad Name
                schedules:
                - name: s1
                  interval: every day
                  extractor: tap-a
                  loader: target-missing
                """, null, null));
        assertEquals(400, ProblemMappers.typeOf(e).status());
        List<String> fields = e.errors().stream().map(Problem.FieldError::field).toList();
        assertTrue(fields.containsAll(List.of("plugins.extractors[2].select", "plugins.extractors[2].executable",
                "plugins.loaders[0].name", "schedules[0].interval", "schedules[0].loader")), fields.toString());
        assertTrue(e.errors().stream().anyMatch(f -> f.message().contains("(line 7)")), e.errors().toString());
    }

    @Test
    void errorsOfTheImportedEnvironmentNameItsOwnEntry() {
        // The environment's index among the readable entries (0) is not its YAML index (1).
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read("""
                environments:
                - 5
                - name: dev
                  env: [1]
                """, null, null));
        assertEquals(List.of("environments[0]", "environments[1].env"),
                e.errors().stream().map(Problem.FieldError::field).toList());
        assertEquals("must be a mapping of variable names to values (line 4)", e.errors().get(1).message());
    }

    @Test
    void relativeExecutablesResolveAgainstTheBaseDirectory() {
        ProjectModel m = read("""
                plugins:
                  extractors:
                  - name: tap-with-state
                    executable: ./tap.py
                  - name: tap-on-path
                """, null, Path.of("/srv/project"));
        assertEquals("/srv/project/tap.py", plugin(m, "tap-with-state").executable());
        assertEquals("tap-on-path", plugin(m, "tap-on-path").executable(), "default: the plugin name");
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read("""
                plugins:
                  extractors:
                  - name: tap-x
                    executable: ../../bin/sh
                """, null, Path.of("/srv/project")));
        assertEquals("plugins.extractors[0].executable", e.errors().get(0).field());
    }

    @Test
    void hostileAndMalformedYamlIsRefusedCleanly() {
        StringBuilder bomb = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        char prev = 'a';
        for (char c = 'b'; c <= 'j'; c++) {
            bomb.append(c).append(": &").append(c).append(" [");
            for (int i = 0; i < 9; i++) {
                bomb.append(i == 0 ? "" : ",").append('*').append(prev);
            }
            bomb.append("]\n");
            prev = c;
        }
        DomainException e = assertThrows(DomainException.class, () -> MeltanoYaml.parse(bomb.toString(), LIMITS));
        assertEquals("urn:tapline:problem:malformed-body", ProblemMappers.typeOf(e).uri());
        assertTrue(e.getMessage().contains("aliases"), e.getMessage());
        // Under the alias cap, the node budget still stops the expansion.
        StringBuilder small = new StringBuilder("a: &a [1, 2, 3, 4, 5, 6, 7, 8]\n");
        prev = 'a';
        for (char c = 'b'; c <= 'h'; c++) {
            small.append(c).append(": &").append(c).append(" [*").append(prev).append(", *").append(prev)
                    .append(", *").append(prev).append(", *").append(prev).append(", *").append(prev).append("]\n");
            prev = c;
        }
        e = assertThrows(DomainException.class, () -> MeltanoYaml.parse(small.toString(), LIMITS));
        assertTrue(e.getMessage().contains("alias bomb"), e.getMessage());
        e = assertThrows(DomainException.class, () -> MeltanoYaml.parse("plugins: [unclosed\n  - x: :", LIMITS));
        assertTrue(e.getMessage().contains("line"), e.getMessage());
        e = assertThrows(DomainException.class, () -> MeltanoYaml.parse("a: 1\na: 2\n", LIMITS));
        assertTrue(e.getMessage().contains("duplicate key 'a'"), e.getMessage());
        e = assertThrows(DomainException.class, () -> MeltanoYaml.parse("a: !!python/object:os.system x\n", LIMITS));
        assertTrue(e.getMessage().contains("not allowed"), e.getMessage());
        e = assertThrows(DomainException.class, () -> MeltanoYaml.parse("a: &x [*x]\n", LIMITS));
        assertEquals(400, ProblemMappers.typeOf(e).status());
        e = assertThrows(DomainException.class, () -> MeltanoYaml.parse("x".repeat(100), new MeltanoYaml.Limits(10, 5, 5, 100)));
        assertEquals(413, ProblemMappers.typeOf(e).status());
    }

    @Test
    void scalarsFollowTheCoreSchemaAndAliasesExpand() {
        JsonNode root = MeltanoYaml.parse("""
                base: &base {host: h, port: 5432}
                a: yes
                b: true
                c: 1.50
                d: '5'
                e: ~
                f: 2020-01-01
                g:
                  <<: *base
                  port: 1
                h: *base
                """, LIMITS).root();
        assertEquals("yes", root.get("a").asText());
        assertTrue(root.get("b").isBoolean());
        assertEquals("1.50", root.get("c").decimalValue().toPlainString());
        assertTrue(root.get("d").isTextual());
        assertTrue(root.get("e").isNull());
        assertEquals("2020-01-01", root.get("f").asText());
        assertEquals("h", root.at("/g/host").asText());
        assertEquals(1, root.at("/g/port").asInt());
        assertEquals(5432, root.at("/h/port").asInt());
    }
}

package io.tapline.project.meltano;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.Problem;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.MeltanoDocument.Environment;
import io.tapline.project.meltano.MeltanoDocument.Job;
import io.tapline.project.meltano.MeltanoDocument.Plugin;
import io.tapline.project.meltano.MeltanoDocument.Schedule;
import io.tapline.project.meltano.MeltanoDocument.Setting;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A meltano.yml bound to {@link MeltanoDocument}: every shape of meltano-state.md §5 lands in the
 * expected record, as written (environments keep their overlays, jobs their tasks), extras keep
 * their order, and shapes Tapline cannot read are errors at their YAML paths.
 */
class MeltanoDocumentTest {

    private static final MeltanoYaml.Limits LIMITS = new MeltanoYaml.Limits(1 << 20, 50, 50, 200_000);

    /** Every shape of meltano-state.md §5 (schedules, jobs, environments, plugins, state_backend). */
    private static final String SECTION_5 = """
            version: 1
            default_environment: dev
            project_id: 6b0a1d2e-0000-4000-8000-000000000001
            send_anonymous_usage_stats: false
            state_backend:
              uri: s3://bucket/prefix
              lock_timeout_seconds: 10
              s3:
                endpoint_url: http://localhost:9000
            environments:
            - name: dev
              env:
                LOG_LEVEL: debug
              state_id_suffix: ${SUFFIX}
              config:
                plugins:
                  extractors:
                  - name: tap-gitlab
                    config:
                      projects: dev/project
                    select:
                    - issues.*
                    schema:
                      issues: {}
                  loaders:
                  - name: target-jsonl
                    env:
                      TARGET_JSONL_DESTINATION_PATH: /tmp/dev
            - name: prod
            plugins:
              extractors:
              - name: tap-with-state
                namespace: tap_with_state
                variant: custom
                executable: ./tap.py
                capabilities: [discover, catalog, state]
                select: ["*.*"]
                metadata:
                  '*':
                    replication-method: INCREMENTAL
                settings:
                - name: password
                  kind: password
                - name: api_token
                  sensitive: true
                - name: start_date
                  value: '2020-01-01'
                config:
                  port: 1.50
                env:
                  TAP_VAR: x
                schema: {}
                catalog: catalog.json
                state: state.json
                select_filter: [issues]
                load_schema: raw
                use_cached_catalog: true
                log_parser: singer-sdk
                python: python3.11
                requires: {files: [{name: files-x}]}
                docs: https://example.com
                repo: https://example.com/repo
                label: With state
                logo_url: https://example.com/logo.png
              - name: tap-gitlab
                inherit_from: tap-with-state
                pip_url: tap-gitlab==1.0
              loaders:
              - name: target-jsonl
                variant: andyh1203
                pip_url: target-jsonl
                dialect: jsonl
              mappers:
              - name: meltano-map-transformer
                mappings:
                - name: hide-gitlab-secrets
                  config:
                    stream_maps: {}
              utilities:
              - name: dbt-postgres
                commands:
                  run: run --select x
                  test:
                    args: test
                    description: tests
              orchestrators:
              - name: airflow
            schedules:
            - name: daily-gitlab-load
              interval: '@daily'
              job: tap-gitlab-to-target-postgres
              env: {SCHEDULE_VAR: value}
            - name: gitlab-to-jsonl
              interval: '0 */6 * * *'
              extractor: tap-gitlab
              loader: target-jsonl
              transform: skip
              start_date: '2020-01-01'
            jobs:
            - name: tap-gitlab-to-target-postgres
              tasks:
              - tap-gitlab hide-gitlab-secrets target-jsonl
              - dbt-postgres:run
            - name: grouped
              tasks:
              - [tap-gitlab target-jsonl, dbt-postgres:test]
            - name: one-string
              tasks: tap-gitlab target-jsonl
            """;

    static MeltanoDocument bind(String yaml, Issues issues) {
        return DocumentBinder.bind(MeltanoYaml.parse(yaml, LIMITS), issues);
    }

    static MeltanoDocument bind(String yaml) {
        Issues issues = new Issues(MeltanoYaml.parse(yaml, LIMITS));
        MeltanoDocument d = bind(yaml, issues);
        issues.throwIfErrors();
        return d;
    }

    @Test
    void everyShapeOfTheSpecBindsToItsRecord() {
        MeltanoDocument d = bind(SECTION_5);
        assertEquals(1, d.version());
        assertEquals("dev", d.defaultEnvironment());
        assertEquals(List.of("project_id", "send_anonymous_usage_stats"), List.copyOf(d.extras().keySet()));
        assertEquals("s3://bucket/prefix", d.stateBackend().uri());
        assertEquals(List.of("lock_timeout_seconds", "s3"), List.copyOf(d.stateBackend().settings().keySet()));

        // Environments stay whole: each with its own overlays, env and suffix as written.
        Environment dev = d.environments().get(0);
        assertEquals("dev", dev.name());
        assertEquals(Map.of("LOG_LEVEL", "debug"), dev.env());
        assertEquals("${SUFFIX}", dev.stateIdSuffix());
        var tap = dev.overlays(PluginType.EXTRACTORS).get(0);
        assertEquals("tap-gitlab", tap.name());
        assertEquals("dev/project", tap.config().get("projects").asText());
        assertEquals(List.of("issues.*"), tap.select());
        assertEquals(List.of("schema"), List.copyOf(tap.extras().keySet()));
        assertEquals(Map.of("TARGET_JSONL_DESTINATION_PATH", "/tmp/dev"),
                dev.overlays(PluginType.LOADERS).get(0).env());
        assertEquals("prod", d.environments().get(1).name());
        assertEquals(List.of(), d.environments().get(1).overlays(PluginType.EXTRACTORS));

        // Plugins: generic keys as fields, the rest in extras in document order, typed views of extras.
        Plugin p = d.plugins().extractors().get(0);
        assertEquals("tap_with_state", p.namespace());
        assertEquals("custom", p.variant());
        assertEquals("./tap.py", p.executable());
        assertEquals(List.of("discover", "catalog", "state"), p.capabilities());
        assertEquals(List.of("*.*"), p.select());
        assertEquals("INCREMENTAL", p.metadata().at("/*/replication-method").asText());
        assertEquals(Map.of("TAP_VAR", "x"), p.env());
        assertInstanceOf(DecimalNode.class, p.config().get("port"));
        assertEquals("1.50", p.config().get("port").decimalValue().toPlainString(), "numbers as written");
        assertEquals(List.of("settings", "schema", "catalog", "state", "select_filter", "load_schema",
                "use_cached_catalog", "log_parser", "python", "requires", "docs", "repo", "label", "logo_url"),
                List.copyOf(p.extras().keySet()));
        List<Setting> settings = p.settings();
        assertEquals(List.of("password", "api_token", "start_date"), settings.stream().map(Setting::name).toList());
        assertEquals(List.of(true, true, false), settings.stream().map(Setting::secret).toList());
        assertEquals("2020-01-01", settings.get(2).value().asText());
        assertNull(settings.get(0).value());
        assertEquals("python3.11", p.python());
        Plugin child = d.plugins().extractors().get(1);
        assertEquals("tap-with-state", child.inheritFrom());
        assertEquals("tap-gitlab==1.0", child.pipUrl());
        assertNull(child.capabilities(), "not written: inherited");
        assertEquals(List.of("dialect"), List.copyOf(d.plugins().loaders().get(0).extras().keySet()));
        assertEquals("hide-gitlab-secrets", d.plugins().mappers().get(0).mappings().get(0).name());
        Plugin dbt = d.plugins().utilities().get(0);
        assertEquals("run --select x", dbt.command("run").args());
        assertEquals("test", dbt.command("test").args());
        assertNull(dbt.command("nope"));
        assertEquals(List.of("orchestrators"), List.copyOf(d.plugins().extras().keySet()));

        // Schedules in both forms; jobs with tasks in both shapes, as written.
        Schedule job = d.schedules().get(0);
        assertTrue(job.isJobSchedule());
        assertEquals("tap-gitlab-to-target-postgres", job.job());
        assertEquals(Map.of("SCHEDULE_VAR", "value"), job.env());
        Schedule el = d.schedules().get(1);
        assertFalse(el.isJobSchedule());
        assertEquals("tap-gitlab", el.extractor());
        assertEquals("target-jsonl", el.loader());
        assertEquals("skip", el.transform());
        assertEquals("0 */6 * * *", el.interval());
        assertEquals(List.of("start_date"), List.copyOf(el.extras().keySet()));
        Job first = d.jobs().get(0);
        assertFalse(first.tasks().single());
        assertEquals(List.of("tap-gitlab hide-gitlab-secrets target-jsonl", "dbt-postgres:run"),
                first.tasks().items().stream().map(MeltanoDocument.Task::text).toList());
        assertEquals(List.of("tap-gitlab target-jsonl", "dbt-postgres:test"), d.jobs().get(1).tasks().items().get(0).texts());
        assertTrue(d.jobs().get(2).tasks().single());
        assertEquals("tap-gitlab target-jsonl", d.jobs().get(2).tasks().text());
    }

    @Test
    void theSharedFixtureBinds() throws Exception {
        MeltanoDocument d = bind(Files.readString(Path.of("src/test/resources/meltano/meltano-project.meltano.yml")));
        assertEquals(List.of("tap-spreadsheets-anywhere", "tap-sqlite", "tap-ssa-jsonl", "tap-csv"),
                d.plugins().extractors().stream().map(Plugin::name).toList());
        assertEquals(List.of("target-jsonl", "target-csv", "target-csv-bench", "target-sqlite"),
                d.plugins().loaders().stream().map(Plugin::name).toList());
        assertEquals("file:///srv/meltano/state", d.stateBackend().uri());
        assertEquals(List.of("dev"), d.environments().stream().map(Environment::name).toList());
        Plugin ssa = d.plugins().extractors().get(2);
        assertEquals("tap-spreadsheets-anywhere", ssa.inheritFrom());
        assertEquals("events", ssa.config().at("/tables/0/name").asText());
        assertEquals("tables", d.plugins().extractors().get(0).settings().get(0).name());
        assertEquals(List.of(), d.schedules());
        assertEquals(List.of(), d.jobs());
    }

    @Test
    void extrasKeepTheirDocumentOrderAndNulls() {
        MeltanoDocument d = bind("""
                plugins:
                  extractors:
                  - name: tap-a
                    zeta: 1
                    executable: /bin/tap
                    alpha: 2
                    hidden: ~
                    mid: 3
                """);
        Plugin p = d.plugins().extractors().get(0);
        assertEquals(List.of("zeta", "alpha", "hidden", "mid"), List.copyOf(p.extras().keySet()));
        assertEquals(NullNode.instance, p.extras().get("hidden"));
        assertEquals("/bin/tap", p.executable());
    }

    @Test
    void unreadableShapesAreErrorsAtTheirPathsAndTheirEntriesNull() {
        String yaml = """
                plugins:
                  extractors:
                  - name: tap-a
                    select: not-a-list
                    env: {A: [1]}
                  - 5
                  - name: tap-c
                    capabilities: [a, {b: 1}]
                jobs:
                - name: j
                  tasks: 5
                schedules:
                - interval: '@daily'
                """;
        Issues issues = new Issues(MeltanoYaml.parse(yaml, LIMITS));
        MeltanoDocument d = bind(yaml, issues);
        List<Plugin> extractors = d.plugins().extractors();
        assertEquals(3, extractors.size(), "indices stay those of the YAML");
        assertNull(extractors.get(1));
        assertEquals(List.of(), extractors.get(0).select(), "the empty value of its type");
        assertEquals(List.of("a"), extractors.get(2).capabilities());
        assertNull(d.jobs().get(0).tasks());
        assertNull(d.schedules().get(0));
        InvalidInputException e = assertThrows(InvalidInputException.class, issues::throwIfErrors);
        assertEquals(List.of(
                        "plugins.extractors[0].select: must be a list of strings (line 4)",
                        "plugins.extractors[0].env.A: must be a single value (line 5)",
                        "plugins.extractors[1]: must be a mapping with a name (line 6)",
                        "plugins.extractors[2].capabilities[1]: must be a string (line 8)",
                        "jobs[0].tasks: must be a string or a list (line 11)",
                        "schedules[0].name: is required (line 13)"),
                e.errors().stream().map(f -> f.field() + ": " + f.message()).toList());
        assertEquals("meltano.yml has 6 problems: plugins.extractors[0].select, plugins.extractors[0].env.A,"
                + " plugins.extractors[1], plugins.extractors[2].capabilities[1], jobs[0].tasks, schedules[0].name.",
                e.getMessage());
    }

    @Test
    void anEnvironmentIsCheckedBeyondItsNameOnlyWhenItsScopeIsReported() {
        String yaml = """
                environments:
                - name: dev
                  env: [1]
                - name: prod
                  env: {OK: '1'}
                  state_id_suffix: [x]
                """;
        Issues issues = new Issues(MeltanoYaml.parse(yaml, LIMITS));
        MeltanoDocument d = bind(yaml, issues);
        assertEquals(Map.of(), d.environments().get(0).env());
        assertFalse(issues.hasErrors(), "held until the environment is used");
        issues.reportScope("environments[1]");
        InvalidInputException e = assertThrows(InvalidInputException.class, issues::throwIfErrors);
        List<String> fields = new ArrayList<>();
        e.errors().forEach(f -> fields.add(f.field()));
        assertEquals(List.of("environments[1].state_id_suffix"), fields);
        assertEquals("meltano.yml environments[1].state_id_suffix: must be a single value, not a list (line 6)",
                e.getMessage());
        Problem.FieldError only = e.errors().get(0);
        assertEquals("must be a single value, not a list (line 6)", only.message());
    }
}

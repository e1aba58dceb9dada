package io.tapline.demo;

import io.quarkus.runtime.StartupEvent;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.pipeline.PipelineService;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginService;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.api.PluginRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * Seeds a ready-to-run demo when {@code tapline.demo.enabled} is true (the default in dev mode):
 * the example connectors of {@code examples/} as plugins {@code tap-demo} and {@code target-demo},
 * and a pipeline {@code demo} that syncs {@code <work-dir>/people.csv} incrementally (replication
 * key {@code updated_at}) into JSON Lines files under {@code <work-dir>/output}. Existing plugins
 * and pipelines of those names are left as they are.
 */
@ApplicationScoped
public class DemoSeeder {

    private static final Logger LOG = Logger.getLogger(DemoSeeder.class);
    /** Name of the demo pipeline. */
    public static final String PIPELINE = "demo";

    private final TaplineConfig config;
    private final PluginService plugins;
    private final PluginRepository pluginRepository;
    private final PipelineService pipelines;
    private final PipelineRepository pipelineRepository;

    public DemoSeeder(TaplineConfig config, PluginService plugins, PluginRepository pluginRepository,
                      PipelineService pipelines, PipelineRepository pipelineRepository) {
        this.config = config;
        this.plugins = plugins;
        this.pluginRepository = pluginRepository;
        this.pipelines = pipelines;
        this.pipelineRepository = pipelineRepository;
    }

    void onStart(@Observes StartupEvent event) {
        if (config.demo().enabled()) {
            try {
                seed();
            } catch (IOException | RuntimeException e) {
                LOG.warnf("The demo pipeline was not seeded: %s", e.getMessage());
            }
        }
    }

    /** Creates the demo plugins and pipeline if they do not exist yet. */
    public void seed() throws IOException {
        Path examples = config.demo().examplesDir().toAbsolutePath().normalize();
        Path tap = examples.resolve("tap-demo/tap_demo.py");
        Path target = examples.resolve("target-demo/target_demo.py");
        if (!Files.isExecutable(tap) || !Files.isExecutable(target)) {
            LOG.infof("Demo not seeded: no example connectors under %s (set tapline.demo.examples-dir)", examples);
            return;
        }
        Path work = config.demo().workDir().toAbsolutePath().normalize();
        Files.createDirectories(work.resolve("output"));
        Path csv = work.resolve("people.csv");
        if (!Files.exists(csv)) {
            Files.copy(examples.resolve("data/people.csv"), csv, StandardCopyOption.COPY_ATTRIBUTES);
        }
        if (pluginRepository.findByTypeAndName(PluginType.EXTRACTORS, "tap-demo").isEmpty()) {
            plugins.put(PluginType.EXTRACTORS, "tap-demo", new PluginRequest(null, tap.toString(), List.of(),
                    List.of("discover", "catalog", "state"),
                    Jsons.MAPPER.valueToTree(Map.of("streams", List.of(Map.of("name", "people", "path", csv.toString(),
                            "key_properties", List.of("id"), "replication_key", "updated_at")))),
                    List.of(), List.of("people.*"), null, null, Map.of()), ExpectedVersion.none());
        }
        if (pluginRepository.findByTypeAndName(PluginType.LOADERS, "target-demo").isEmpty()) {
            plugins.put(PluginType.LOADERS, "target-demo", new PluginRequest(null, target.toString(), List.of(),
                    List.of(), Jsons.MAPPER.valueToTree(Map.of("destination", work.resolve("output").toString())),
                    List.of(), List.of(), null, null, Map.of()), ExpectedVersion.none());
        }
        if (pipelineRepository.findByName(PIPELINE).isEmpty()) {
            pipelines.put(PIPELINE, new PipelineRequest(null, "tap-demo", List.of(), "target-demo", null, "dev", null,
                    null, new PipelineRequest.Schedule("@manual", "UTC", true), null, null, 600, null, Map.of()),
                    ExpectedVersion.none());
            LOG.infof("Demo pipeline '%s' is ready: POST /api/v1/pipelines/%s/runs (data: %s)", PIPELINE, PIPELINE, csv);
        }
    }
}

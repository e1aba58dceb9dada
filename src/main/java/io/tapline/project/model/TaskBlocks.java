package io.tapline.project.model;

import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument.Command;
import io.tapline.project.meltano.MeltanoDocument.Task;
import io.tapline.project.meltano.MeltanoDocument.Tasks;
import io.tapline.project.model.ProjectModel.PluginDef;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A job's {@code tasks} as one Tapline pipeline: the tasks are split into blocks on spaces, as
 * {@code meltano run} does; the first {@code tap [mappers] target} is the extract-load and a
 * following utility or transformer task ({@code dbt-postgres:run}) the transform step, with the
 * arguments of that command under the plugin's {@code commands} (else the command name). Blocks
 * before the extractor and after the transform are reported and not run.
 */
final class TaskBlocks {

    /**
     * The pipeline's plugins.
     *
     * @param extractor extractor name
     * @param mappers mapper names (a mapping that stands for a mapper: the mapper)
     * @param loader loader name
     * @param transform transform plugin, or null
     * @param transformArgs its arguments
     */
    record Steps(String extractor, List<String> mappers, String loader, String transform, List<String> transformArgs) {
    }

    /** One word of the tasks and its YAML path. */
    private record Block(String word, String path) {
    }

    private final Issues issues;
    private final Map<String, PluginType> typeOf;
    private final Map<String, PluginDef> byName;
    private final Map<String, String> mapperOfMapping;

    /**
     * @param typeOf the type of each plugin and mapping name
     * @param byName the plugins by name
     * @param mapperOfMapping mapping names that stand for a mapper ({@link MapperMappings#mapperOfMapping()})
     */
    TaskBlocks(Issues issues, Map<String, PluginType> typeOf, Map<String, PluginDef> byName,
               Map<String, String> mapperOfMapping) {
        this.issues = issues;
        this.typeOf = typeOf;
        this.byName = byName;
        this.mapperOfMapping = mapperOfMapping;
    }

    /**
     * The steps of a job, or null (with an error) when its tasks make no pipeline.
     *
     * @param tasks the job's tasks (null when not written: the check reported it)
     * @param jobPath the job's YAML path, e.g. {@code jobs[1]}
     */
    Steps steps(Tasks tasks, String jobPath) {
        if (tasks == null) {
            return null;
        }
        List<Block> blocks = blocks(tasks, jobPath + ".tasks");
        int i = 0;
        while (i < blocks.size() && typeOf.get(blocks.get(i).word()) != PluginType.EXTRACTORS) {
            Block b = blocks.get(i);
            if (typeOf.containsKey(plugin(b.word())) || byName.containsKey(plugin(b.word()))) {
                issues.unsupported(b.path(), "'" + b.word() + "' before the first extractor is not run by the"
                        + " pipeline");
            } else {
                issues.error(b.path(), "'" + b.word() + "' is not a plugin defined under plugins");
            }
            i++;
        }
        if (i == blocks.size()) {
            issues.error(jobPath + ".tasks", "has no extractor: a Tapline pipeline needs 'tap [mappers] target'");
            return null;
        }
        String extractor = blocks.get(i).word();
        String extractorPath = blocks.get(i).path();
        i++;
        List<String> mappers = new ArrayList<>();
        while (i < blocks.size() && typeOf.get(blocks.get(i).word()) == PluginType.MAPPERS) {
            mappers.add(mapperOfMapping.getOrDefault(blocks.get(i).word(), blocks.get(i).word()));
            i++;
        }
        if (i == blocks.size() || typeOf.get(blocks.get(i).word()) != PluginType.LOADERS) {
            String got = i == blocks.size() ? "nothing" : "'" + blocks.get(i).word() + "'";
            issues.error(i == blocks.size() ? extractorPath : blocks.get(i).path(), "the extractor '" + extractor
                    + "' must be followed by mappers and a loader; found " + got);
            return null;
        }
        String loader = blocks.get(i).word();
        i++;
        String transform = null;
        List<String> args = List.of();
        if (i < blocks.size()) {
            Block b = blocks.get(i);
            String plugin = plugin(b.word());
            PluginType t = typeOf.get(plugin);
            if (t == PluginType.UTILITIES || t == PluginType.TRANSFORMERS) {
                transform = plugin;
                args = commandArgs(byName.get(plugin), b.word(), b.path());
                i++;
            }
        }
        for (; i < blocks.size(); i++) {
            Block b = blocks.get(i);
            if (typeOf.containsKey(plugin(b.word()))) {
                issues.unsupported(b.path(), "'" + b.word() + "': a Tapline pipeline runs one extract-load and"
                        + " one transform step; this task is not run");
            } else {
                issues.error(b.path(), "'" + b.word() + "' is not a plugin defined under plugins");
            }
        }
        return new Steps(extractor, mappers, loader, transform, args);
    }

    /** The words of every task with the YAML path of the string they are in. */
    private static List<Block> blocks(Tasks tasks, String path) {
        List<Block> blocks = new ArrayList<>();
        if (tasks.single()) {
            words(blocks, tasks.text(), path);
            return blocks;
        }
        for (int i = 0; i < tasks.items().size(); i++) {
            Task t = tasks.items().get(i);
            if (t.text() != null) {
                words(blocks, t.text(), path + "[" + i + "]");
                continue;
            }
            for (int k = 0; k < t.texts().size(); k++) {
                if (t.texts().get(k) != null) {
                    words(blocks, t.texts().get(k), path + "[" + i + "][" + k + "]");
                }
            }
        }
        return blocks;
    }

    private static void words(List<Block> blocks, String task, String path) {
        for (String word : task.trim().split("\\s+")) {
            if (!word.isEmpty()) {
                blocks.add(new Block(word, path));
            }
        }
    }

    /** The plugin of a block: {@code dbt} for {@code dbt:run}. */
    static String plugin(String block) {
        int c = block.indexOf(':');
        return c < 0 ? block : block.substring(0, c);
    }

    /** Arguments of {@code plugin:command}: the command's {@code args} from {@code commands}, else the command name. */
    private List<String> commandArgs(PluginDef plugin, String block, String path) {
        int c = block.indexOf(':');
        if (c < 0) {
            return List.of();
        }
        String name = block.substring(c + 1);
        Command command = plugin == null || !plugin.extras().path("commands").has(name) ? null
                : Command.of(plugin.extras().path("commands").get(name));
        if (command != null) {
            if (command.args() != null) {
                return List.of(command.args().trim().split("\\s+"));
            }
            issues.unsupported(path, "command '" + name + "' has no args string; '" + name
                    + "' is passed as the argument");
        }
        return List.of(name);
    }
}

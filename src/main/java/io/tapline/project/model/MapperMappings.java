package io.tapline.project.model;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.api.Names;
import io.tapline.plugin.PluginType;
import io.tapline.project.meltano.Conventions;
import io.tapline.project.meltano.DocumentBinder;
import io.tapline.project.meltano.Issues;
import io.tapline.project.meltano.MeltanoDocument.Mapping;
import io.tapline.project.model.ProjectModel.PluginDef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A mapper's {@code mappings} as Tapline mappers. Meltano runs a mapper only through one of its
 * mappings, named unlike any plugin; Tapline makes one mapper per mapping, named after it, with the
 * mapping's config deep-merged over the mapper's, so that {@code tap hide-secrets target} names a
 * mapper. A mapping annotated {@code annotations: {tapline: {mapper: <the mapper>}}} (Tapline's
 * export of a mapper made through the API) is that mapper itself: its config goes into the mapper
 * and the tasks' mapping name stands for the mapper ({@link #mapperOfMapping()}).
 */
final class MapperMappings {

    private final Issues issues;
    /** Mapping names that stand for a mapper of the same pipeline (Tapline's export), by mapping name. */
    private final Map<String, String> mapperOfMapping = new HashMap<>();

    MapperMappings(Issues issues) {
        this.issues = issues;
    }

    /**
     * Adds the mappers made from mappings, and folds annotated mappings into their mapper.
     *
     * @param plugins the plugins ({@link PluginPlanner#plan()}); annotated mappers are replaced in place
     * @return the mappers made from mappings, in order
     */
    List<PluginDef> expand(List<PluginDef> plugins) {
        List<PluginDef> out = new ArrayList<>();
        Map<String, ObjectNode> folded = new HashMap<>();
        Set<String> taken = new HashSet<>();
        plugins.forEach(p -> taken.add(p.name()));
        for (PluginDef m : plugins) {
            if (m.type() != PluginType.MAPPERS) {
                continue;
            }
            List<Mapping> mappings = DocumentBinder.bindEach(m.extras().get("mappings"), Mapping.class);
            for (int i = 0; i < mappings.size(); i++) {
                String path = m.path() + ".mappings[" + i + "]";
                Mapping mapping = mappings.get(i);
                if (mapping == null) {
                    continue; // not a mapping with a name, or a config that is no mapping: reported by the check
                }
                String name = mapping.name();
                ObjectNode config = mapping.config() == null ? JsonNodeFactory.instance.objectNode() : mapping.config();
                String annotated = mapping.annotations() == null ? null
                        : mapping.annotations().path(Conventions.ANNOTATION).path("mapper").asText(null);
                if (m.name().equals(annotated)) {
                    if (!taken.add(name)) {
                        issues.error(path + ".name", "'" + name + "' is also the name of a plugin or another mapping");
                        continue;
                    }
                    mapperOfMapping.put(name, m.name());
                    folded.put(m.name(), config);
                    continue;
                }
                if (!Names.PLUGIN_NAME.matcher(name).matches()) {
                    issues.error(path + ".name", "must be a valid plugin name (it becomes a Tapline mapper)");
                    continue;
                }
                if (!taken.add(name)) {
                    issues.error(path + ".name", "'" + name + "' is also the name of a plugin or another mapping");
                    continue;
                }
                ObjectNode merged = m.config().deepCopy();
                PluginPlanner.deepMerge(merged, config);
                ObjectNode extras = JsonNodeFactory.instance.objectNode();
                extras.put(Conventions.MAPPING_OF, m.name());
                out.add(new PluginDef(PluginType.MAPPERS, name, path, m.executable(), m.capabilities(), merged,
                        m.sensitive(), List.of(), JsonNodeFactory.instance.objectNode(), m.env(), m.namespace(),
                        m.variant(), m.pipUrl(), m.name(), extras, m.args(), m.overlays()));
            }
        }
        for (int k = 0; k < plugins.size(); k++) {
            PluginDef m = plugins.get(k);
            ObjectNode own = folded.get(m.name());
            if (m.type() != PluginType.MAPPERS || own == null) {
                continue;
            }
            ObjectNode config = m.config().deepCopy();
            PluginPlanner.deepMerge(config, own);
            ObjectNode extras = m.extras().deepCopy();
            extras.remove("mappings");
            plugins.set(k, new PluginDef(m.type(), m.name(), m.path(), m.executable(), m.capabilities(), config,
                    m.sensitive(), m.select(), m.metadata(), m.env(), m.namespace(), m.variant(), m.pipUrl(),
                    m.inheritFrom(), extras, m.args(), m.overlays()));
        }
        return out;
    }

    /** The mapping names that stand for a mapper (annotated mappings), by mapping name. */
    Map<String, String> mapperOfMapping() {
        return mapperOfMapping;
    }
}

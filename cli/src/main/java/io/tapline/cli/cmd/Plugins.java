package io.tapline.cli.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Api;
import io.tapline.cli.http.Pages;
import io.tapline.cli.http.Paths;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Finding plugins by name, as Meltano does (a name is unique per type; {@code --plugin-type} when not). */
final class Plugins {

    /** The plugin types in the API's path form. */
    static final List<String> TYPES = List.of("extractors", "loaders", "mappers", "transformers", "utilities");

    private Plugins() {
    }

    /**
     * A plugin type in the API's path form ({@code extractors}) from Meltano's singular
     * ({@code extractor}) or the plural.
     */
    static String type(String t) {
        String s = t.toLowerCase(Locale.ROOT);
        for (String type : TYPES) {
            if (type.equals(s) || singular(type).equals(s)) {
                return type;
            }
        }
        throw CliException.usage("'" + t + "' is not a plugin type; use extractor, loader, mapper, transformer or"
                + " utility.");
    }

    static String singular(String type) {
        return type.equals("utilities") ? "utility" : type.substring(0, type.length() - 1);
    }

    /** Every plugin, of every type. */
    static ArrayNode all() {
        Api api = Session.current().api();
        return Pages.collect(Pages.of(c -> api.get("/api/v1/plugins")), 0);
    }

    /**
     * The API path of a plugin, {@code /api/v1/plugins/<type>/<name>}.
     *
     * @param type the type the user gave, or null to find the plugin by name among all
     */
    static String path(String type, String name) {
        return "/api/v1/plugins/" + (type != null ? type(type) : find(name)) + "/" + Paths.seg(name);
    }

    /** The type of the one plugin of that name. */
    static String find(String name) {
        List<String> types = new ArrayList<>();
        for (JsonNode p : all()) {
            if (p.path("name").asText().equals(name)) {
                types.add(p.path("type").asText());
            }
        }
        if (types.isEmpty()) {
            throw new CliException(ExitCodes.NOT_FOUND, "There is no plugin '" + name + "'; tapline plugins list"
                    + " shows them.");
        }
        if (types.size() > 1) {
            throw CliException.usage("'" + name + "' names several plugins (" + String.join(", ", types)
                    + "); add --plugin-type.");
        }
        return types.get(0);
    }
}

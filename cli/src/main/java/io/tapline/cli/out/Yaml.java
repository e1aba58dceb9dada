package io.tapline.cli.out;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;

/** {@code --format yaml}: jackson-dataformat-yaml, loaded only when asked for. */
final class Yaml {

    private static final ObjectWriter WRITER = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .build()).writer();

    private Yaml() {
    }

    static String write(JsonNode n) {
        try {
            return WRITER.writeValueAsString(n);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

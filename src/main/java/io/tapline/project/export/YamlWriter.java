package io.tapline.project.export;

import com.fasterxml.jackson.databind.JsonNode;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Writes a Jackson tree as block-style YAML that every YAML reader Meltano users meet reads back
 * with the same types: PyYAML and ruamel.yaml in YAML 1.1 mode, ruamel.yaml in its default YAML 1.2
 * mode (what Meltano uses), SnakeYAML, and Tapline's own reader.
 *
 * <p>The tree is turned into SnakeYAML nodes with explicit tags and emitted by SnakeYAML's
 * serializer, which writes a scalar plain only when the resolver would read the plain text back
 * with the same tag; every other scalar is quoted. The resolver is SnakeYAML's YAML 1.1 one
 * (booleans {@code yes/no/on/off}, {@code ~}, dates and timestamps, hex, octal, binary,
 * sexagesimal {@code 12:30}, {@code 1_000}, {@code .inf}, the merge key {@code <<}), widened by the
 * YAML 1.2 core forms ({@code 0o17}), PyYAML's value key {@code =} and the one-letter booleans
 * {@code y/n} of the YAML 1.1 specification, so a string that any of them would read as something
 * else is quoted. Floats are written with a decimal point and a signed exponent
 * ({@code 1.0e+16}), the only form YAML 1.1 readers take as a float.
 */
public final class YamlWriter {

    /** Forms that some reader resolves to a non-string, beyond SnakeYAML's own resolver. */
    private static final class StrictResolver extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            super.addImplicitResolvers();
            addImplicitResolver(Tag.INT, Pattern.compile("^[-+]?0o[0-7]+$"), "-+0");
            addImplicitResolver(new Tag("tag:yaml.org,2002:value"), Pattern.compile("^=$"), "=");
            addImplicitResolver(Tag.BOOL, Pattern.compile("^(?:y|Y|n|N)$"), "yYnN");
        }
    }

    private YamlWriter() {
    }

    /** The document as YAML text (no {@code ---}, no line folding, UTF-8 characters kept). */
    public static String write(JsonNode root) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setWidth(Integer.MAX_VALUE);
        options.setSplitLines(false);
        options.setAllowUnicode(true);
        options.setExplicitStart(false);
        Yaml yaml = new Yaml(new org.yaml.snakeyaml.constructor.SafeConstructor(new org.yaml.snakeyaml.LoaderOptions()),
                new org.yaml.snakeyaml.representer.Representer(options), options, new StrictResolver());
        StringWriter out = new StringWriter();
        yaml.serialize(node(root), out);
        return out.toString();
    }

    private static Node node(JsonNode n) {
        if (n.isObject()) {
            List<NodeTuple> tuples = new ArrayList<>();
            n.fields().forEachRemaining(e -> tuples.add(new NodeTuple(scalar(Tag.STR, e.getKey()), node(e.getValue()))));
            return new MappingNode(Tag.MAP, tuples, DumperOptions.FlowStyle.BLOCK);
        }
        if (n.isArray()) {
            List<Node> items = new ArrayList<>();
            n.forEach(i -> items.add(node(i)));
            return new SequenceNode(Tag.SEQ, items, DumperOptions.FlowStyle.BLOCK);
        }
        if (n.isNull() || n.isMissingNode()) {
            return scalar(Tag.NULL, "null");
        }
        if (n.isBoolean()) {
            return scalar(Tag.BOOL, n.booleanValue() ? "true" : "false");
        }
        if (n.isIntegralNumber()) {
            return scalar(Tag.INT, n.bigIntegerValue().toString());
        }
        if (n.isNumber()) {
            return scalar(Tag.FLOAT, floatText(n));
        }
        return scalar(Tag.STR, n.asText());
    }

    private static ScalarNode scalar(Tag tag, String value) {
        return new ScalarNode(tag, value, null, null, DumperOptions.ScalarStyle.PLAIN);
    }

    /** A float as {@code 1.5}, {@code 100000.0}, {@code 1.0e+16}: with a point, and a signed exponent. */
    static String floatText(JsonNode n) {
        if (n.isDouble() || n.isFloat()) {
            double d = n.doubleValue();
            if (Double.isNaN(d)) {
                return ".nan";
            }
            if (Double.isInfinite(d)) {
                return d > 0 ? ".inf" : "-.inf";
            }
        }
        String s = n.decimalValue().toString();
        int e = s.indexOf('E');
        if (e < 0) {
            return s.contains(".") ? s : s + ".0";
        }
        String mantissa = s.substring(0, e);
        String exponent = s.substring(e + 1);
        if (!mantissa.contains(".")) {
            mantissa = mantissa + ".0";
        }
        if (!exponent.startsWith("-") && !exponent.startsWith("+")) {
            exponent = "+" + exponent;
        }
        return mantissa + "e" + exponent;
    }
}

package io.tapline.project.meltano;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.LimitExceededException;
import io.tapline.common.error.MalformedInputException;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;

import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a meltano.yml safely into a Jackson tree, with the YAML path of every node recorded for
 * error messages ({@code plugins.extractors[2].select}).
 *
 * <p>The document is composed by SnakeYAML (the parser under jackson-dataformat-yaml) with
 * {@link LoaderOptions} limits against hostile input: a code point limit (document size), a
 * nesting depth limit, and a cap on aliases of collections; duplicate keys and recursive
 * structures are refused. Jackson's own YAML parser is not used for reading because it reports an
 * alias as the anchor's name instead of the anchored value. The composed node graph is then
 * converted here with a budget on the number of nodes after alias expansion, so a "billion laughs"
 * document that stays under the alias cap still cannot blow up memory.
 *
 * <p>Scalars follow the YAML 1.2 core schema that Meltano (ruamel.yaml) uses: {@code true}/{@code false}
 * are booleans, plain decimal integers and floats are numbers, {@code null}/{@code ~}/empty are null,
 * and everything else (also {@code yes}, {@code on}, dates) is a string. Quoted scalars are always
 * strings. Merge keys ({@code <<: *base}) are honoured.
 *
 * <p>Errors are {@link MalformedInputException}s (400 {@code malformed-body}) with the details
 * {@code line} and {@code column} when known; a document over the size limit is a
 * {@link LimitExceededException} (413).
 */
public final class MeltanoYaml {

    private static final Pattern INT = Pattern.compile("[-+]?(0|[1-9][0-9]*)");
    private static final Pattern FLOAT = Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");

    /**
     * Limits applied while reading.
     *
     * @param maxChars largest document, in characters (SnakeYAML code points)
     * @param maxAliases most aliases of collections (SnakeYAML {@code maxAliasesForCollections})
     * @param maxDepth deepest nesting (SnakeYAML {@code nestingDepthLimit})
     * @param maxNodes most nodes after alias expansion
     * @param maxExpandedChars most characters of keys and scalar values after alias expansion (an
     *     alias of one large scalar costs its length at every use)
     */
    public record Limits(int maxChars, int maxAliases, int maxDepth, int maxNodes, long maxExpandedChars) {
        /** Limits with an expanded size of twice the document limit. */
        public Limits(int maxChars, int maxAliases, int maxDepth, int maxNodes) {
            this(maxChars, maxAliases, maxDepth, maxNodes, 2L * maxChars);
        }
    }

    /**
     * A parsed document.
     *
     * @param root the top-level mapping
     * @param lines 1-based line of each node by YAML path
     */
    public record Parsed(ObjectNode root, Map<String, Integer> lines) {
        /** The line of a path, or of its nearest ancestor that has one; 0 when unknown. */
        public int line(String path) {
            String p = path;
            while (true) {
                Integer l = lines.get(p);
                if (l != null) {
                    return l;
                }
                int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
                if (cut <= 0) {
                    return 0;
                }
                p = p.substring(0, cut);
            }
        }
    }

    private final Limits limits;
    private final Map<String, Integer> lines = new HashMap<>();
    private final IdentityHashMap<Node, Boolean> visiting = new IdentityHashMap<>();
    private int nodes;
    private long chars;

    private MeltanoYaml(Limits limits) {
        this.limits = limits;
    }

    /**
     * Parses a meltano.yml.
     *
     * @throws LimitExceededException when the text is over the size limit
     * @throws MalformedInputException when it is not one YAML document with a mapping at the top,
     *     breaks a limit, or uses duplicate keys, recursive aliases or tags other than the standard ones
     */
    public static Parsed parse(String text, Limits limits) {
        if (text == null || text.isBlank()) {
            throw new MalformedInputException("The request has no meltano.yml: send the YAML text"
                    + " as the body (application/yaml), or JSON {\"yaml\": \"...\"}.");
        }
        if (text.length() > limits.maxChars()) {
            throw new LimitExceededException(LimitExceededException.Limit.SIZE, "The meltano.yml has " + text.length()
                    + " characters; the limit is " + limits.maxChars() + " (tapline.projects.max-document-chars).");
        }
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(limits.maxChars());
        options.setMaxAliasesForCollections(limits.maxAliases());
        options.setNestingDepthLimit(limits.maxDepth());
        options.setAllowDuplicateKeys(false);
        options.setAllowRecursiveKeys(false);
        options.setProcessComments(false);
        DumperOptions dumper = new DumperOptions();
        Yaml yaml = new Yaml(new SafeConstructor(options), new Representer(dumper), dumper, options);
        Node node;
        try {
            node = yaml.compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            throw malformed(e.getProblemMark(), firstLine(e.getProblem() == null ? e.getMessage() : e.getProblem())
                    + (e.getContext() == null ? "" : " (" + e.getContext() + ")"));
        } catch (YAMLException e) {
            throw new MalformedInputException("The meltano.yml cannot be read: "
                    + firstLine(e.getMessage()) + limitHint(e.getMessage()));
        } catch (StackOverflowError e) {
            throw new MalformedInputException("The meltano.yml is nested too deeply.");
        }
        if (node == null) {
            throw new MalformedInputException("The meltano.yml is empty.");
        }
        if (!(node instanceof MappingNode)) {
            throw malformed(node.getStartMark(), "the top level must be a mapping (version, plugins, schedules, ...)");
        }
        MeltanoYaml reader = new MeltanoYaml(limits);
        JsonNode root = reader.convert(node, "", 0);
        return new Parsed((ObjectNode) root, Map.copyOf(reader.lines));
    }

    private JsonNode convert(Node node, String path, int depth) {
        if (++nodes > limits.maxNodes()) {
            throw new MalformedInputException("The meltano.yml expands to more than "
                    + limits.maxNodes() + " values once its aliases are resolved (tapline.projects.max-nodes);"
                    + " refusing it as an alias bomb.");
        }
        if (depth > limits.maxDepth()) {
            throw malformed(node.getStartMark(), "nesting deeper than " + limits.maxDepth() + " levels");
        }
        if (node.getStartMark() != null) {
            lines.putIfAbsent(path, node.getStartMark().getLine() + 1);
        }
        if (visiting.containsKey(node)) {
            throw malformed(node.getStartMark(), "a recursive alias (a collection that contains itself) at "
                    + display(path));
        }
        if (node instanceof ScalarNode s) {
            count(s.getValue().length());
            return scalar(s);
        }
        visiting.put(node, Boolean.TRUE);
        try {
            if (node instanceof SequenceNode seq) {
                checkTag(node, Tag.SEQ);
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                List<Node> items = seq.getValue();
                for (int i = 0; i < items.size(); i++) {
                    a.add(convert(items.get(i), path + "[" + i + "]", depth + 1));
                }
                return a;
            }
            MappingNode map = (MappingNode) node;
            checkTag(node, Tag.MAP);
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            ObjectNode merged = null;
            for (NodeTuple t : map.getValue()) {
                Node k = t.getKeyNode();
                if (k.getTag().equals(Tag.MERGE)) {
                    merged = merged == null ? JsonNodeFactory.instance.objectNode() : merged;
                    mergeInto(merged, t.getValueNode(), path, depth);
                    continue;
                }
                if (!(k instanceof ScalarNode ks)) {
                    throw malformed(k.getStartMark(), "mapping keys must be plain values at " + display(path));
                }
                String key = ks.getValue();
                count(key.length());
                if (o.has(key)) {
                    throw malformed(k.getStartMark(), "duplicate key '" + key + "' at " + display(path));
                }
                String child = path.isEmpty() ? key : path + "." + key;
                o.set(key, convert(t.getValueNode(), child, depth + 1));
            }
            if (merged != null) {
                ObjectNode out = merged;
                o.fields().forEachRemaining(e -> out.set(e.getKey(), e.getValue()));
                return out;
            }
            return o;
        } finally {
            visiting.remove(node);
        }
    }

    /** Adds expanded characters; refuses the document beyond {@link Limits#maxExpandedChars()}. */
    private void count(int n) {
        chars += n;
        if (chars > limits.maxExpandedChars()) {
            throw new MalformedInputException("The meltano.yml expands to more than "
                    + limits.maxExpandedChars() + " characters once its aliases are resolved"
                    + " (tapline.projects.max-expanded-chars); refusing it as an alias bomb.");
        }
    }

    private void mergeInto(ObjectNode target, Node value, String path, int depth) {
        if (value instanceof SequenceNode seq) {
            // Earlier mappings in a merge list win (YAML merge key rule).
            List<Node> items = seq.getValue();
            for (int i = items.size() - 1; i >= 0; i--) {
                mergeInto(target, items.get(i), path, depth);
            }
            return;
        }
        if (!(value instanceof MappingNode)) {
            throw malformed(value.getStartMark(), "a merge key (<<) must refer to a mapping at " + display(path));
        }
        JsonNode m = convert(value, path, depth);
        m.fields().forEachRemaining(e -> target.set(e.getKey(), e.getValue()));
    }

    private static JsonNode scalar(ScalarNode s) {
        String v = s.getValue();
        Tag tag = s.getTag();
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (!s.isPlain() || tag.equals(Tag.STR)) {
            checkTag(s, Tag.STR);
            return f.textNode(v);
        }
        if (tag.equals(Tag.NULL)) {
            return f.nullNode();
        }
        if (tag.equals(Tag.BOOL)) {
            if (v.equals("true") || v.equals("True") || v.equals("TRUE")) {
                return f.booleanNode(true);
            }
            if (v.equals("false") || v.equals("False") || v.equals("FALSE")) {
                return f.booleanNode(false);
            }
            return f.textNode(v);
        }
        if (tag.equals(Tag.INT) && INT.matcher(v).matches()) {
            BigInteger i = new BigInteger(v.startsWith("+") ? v.substring(1) : v);
            return i.bitLength() < 63 ? f.numberNode(i.longValue()) : f.numberNode(i);
        }
        if (tag.equals(Tag.FLOAT) && FLOAT.matcher(v).matches()) {
            return f.numberNode(new BigDecimal(v.startsWith("+") ? v.substring(1) : v));
        }
        if (tag.equals(Tag.INT) || tag.equals(Tag.FLOAT) || tag.equals(Tag.TIMESTAMP)) {
            return f.textNode(v);
        }
        checkTag(s, Tag.STR);
        return f.textNode(v);
    }

    private static void checkTag(Node node, Tag expected) {
        Tag t = node.getTag();
        if (!t.equals(expected) && !(node instanceof ScalarNode && Tag.standardTags.contains(t))) {
            throw malformed(node.getStartMark(), "the tag " + t.getValue() + " is not allowed in a meltano.yml");
        }
    }

    private static DomainException malformed(Mark mark, String message) {
        String where = mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
        DomainException e = new MalformedInputException("The meltano.yml is not valid YAML"
                + where + ": " + message + ".");
        if (mark != null) {
            e.with("line", mark.getLine() + 1).with("column", mark.getColumn() + 1);
        }
        return e;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).trim();
    }

    private static String limitHint(String message) {
        if (message != null && message.contains("aliases")) {
            return " (tapline.projects.max-aliases; a document with many aliases is refused as an alias bomb).";
        }
        if (message != null && message.contains("code points")) {
            return " (tapline.projects.max-document-chars).";
        }
        if (message != null && message.contains("Nesting Depth")) {
            return " (tapline.projects.max-depth).";
        }
        return ".";
    }

    /** A path for messages: the top level reads "the top level". */
    public static String display(String path) {
        return path.isEmpty() ? "the top level" : path;
    }
}

package io.tapline.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import io.vertx.ext.web.Router;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.ReaderInterceptor;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The layers of docs/architecture.md, checked on the compiled main classes (ArchUnit reads the
 * bytecode: field, parameter and return types, calls, annotations, generic arguments). A
 * top-level package of {@code io.tapline} may depend on packages of lower layers only; packages
 * of one layer (siblings) may not depend on each other; no cycle between top-level packages; no
 * resource depends on another resource; a feature's {@code api} records (HTTP requests and
 * responses) are used by other features only in their resources; {@code ProblemException} is
 * used only by resources, request filters and {@code common.error}. Each failure names the broken
 * edge, one line per edge, with the class dependencies behind it.
 */
class LayersTest {

    private static final String BASE = "io.tapline";
    /** The name of the package {@code io.tapline} itself in the layers and messages. */
    private static final String ROOT = "(root)";

    /**
     * The layers, bottom first; a row with several packages holds siblings. {@code (root)} is the
     * package {@code io.tapline} itself ({@code TaplineMain}). Keep in step with
     * docs/architecture.md.
     */
    static final List<List<String>> LAYERS = List.of(
            List.of("common"),
            List.of("audit"),
            List.of("connector"),
            List.of("state"),
            List.of("plugin"),
            List.of("invocation"),
            List.of("catalog", "pipeline"),
            List.of("run"),
            List.of("schedule"),
            List.of("events", "project", "ui", "demo"),
            List.of(ROOT));

    /**
     * Uses of another feature's {@code api} records outside a resource that exist today, each
     * {@code "class -> api package"}: the importers (project, demo) drive other features'
     * services with their request records until services take domain records (issue 25). The
     * list may only shrink: the test fails when an entry is no longer needed.
     */
    static final Set<String> KNOWN_API_USES = Set.of(
            "demo.DemoSeeder -> pipeline.api",
            "demo.DemoSeeder -> plugin.api",
            "project.ImportConflicts -> plugin.api",
            "project.OverlayImports -> plugin.api",
            "project.ProjectService -> pipeline.api",
            "project.ProjectService -> plugin.api");

    /**
     * Resources that use another resource today, each {@code "resource -> resource"}. Empty: the
     * bookmark endpoints share their answers with the state endpoints through
     * {@code state.api.StateAnswers}. It stays empty.
     */
    static final Set<String> KNOWN_RESOURCE_USES = Set.of();

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
        assertTrue(classes.size() > 100, "expected the main classes of " + BASE + ", found " + classes.size());
    }

    @Test
    void everyTopLevelPackageHasALayer() {
        Set<String> placed = LAYERS.stream().flatMap(List::stream).collect(Collectors.toSet());
        Set<String> missing = new TreeSet<>();
        for (JavaClass c : classes) {
            String top = topLevel(c);
            if (!placed.contains(top)) {
                missing.add(top);
            }
        }
        assertEquals(Set.of(), missing, "top-level packages in no layer: place each in LayersTest.LAYERS and in"
                + " docs/architecture.md");
    }

    @Test
    void dependenciesBetweenTopLevelPackagesPointDown() {
        Map<String, Integer> layer = new LinkedHashMap<>();
        for (int i = 0; i < LAYERS.size(); i++) {
            for (String p : LAYERS.get(i)) {
                layer.put(p, i);
            }
        }
        Map<String, Set<String>> broken = new TreeMap<>();
        for (JavaClass c : classes) {
            String from = topLevel(c);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass();
                if (!inBase(target)) {
                    continue;
                }
                String to = topLevel(target);
                Integer lf = layer.get(from);
                Integer lt = layer.get(to);
                if (from.equals(to) || lf == null || lt == null || lt < lf) {
                    continue;
                }
                String why = lt.equals(lf) ? "siblings in one layer" : to + " is above " + from;
                broken.computeIfAbsent(from + " -> " + to + " (" + why + ")", k -> new TreeSet<>())
                        .add(local(c) + " -> " + local(target));
            }
        }
        assertNoEdges("dependencies that point up or sideways (docs/architecture.md):", broken);
    }

    @Test
    void topLevelPackagesAreFreeOfCycles() {
        EvaluationResult r = slices().matching(BASE + ".(*)..").namingSlices("$1").should().beFreeOfCycles()
                .evaluate(classes);
        if (r.hasViolation()) {
            // ArchUnit's detail starts "Cycle detected: a -> \n b -> \n a", then lists dependencies: keep the cycle.
            List<String> cycles = r.getFailureReport().getDetails().stream()
                    .map(d -> d.split("\n  1\\. ")[0].replaceAll("\\s+", " ").trim()).toList();
            fail("cycles between top-level packages (dependenciesBetweenTopLevelPackagesPointDown names the"
                    + " edge to remove):\n" + String.join("\n", cycles));
        }
    }

    @Test
    void noResourceDependsOnAnotherResource() {
        Map<String, Set<String>> broken = new TreeMap<>();
        for (JavaClass c : classes) {
            if (!c.isAnnotatedWith(Path.class)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass();
                if (!target.equals(c) && target.isAnnotatedWith(Path.class)) {
                    broken.computeIfAbsent(local(c) + " -> " + local(target), k -> new TreeSet<>())
                            .add(d.getDescription());
                }
            }
        }
        Set<String> stale = new TreeSet<>(KNOWN_RESOURCE_USES);
        stale.removeAll(broken.keySet());
        broken.keySet().removeAll(KNOWN_RESOURCE_USES);
        assertNoEdges("resources that use another resource (call its service instead):", broken);
        assertEquals(Set.of(), stale, "entries of LayersTest.KNOWN_RESOURCE_USES no longer needed: remove them");
    }

    @Test
    void apiRecordsOfAFeatureAreUsedByOtherFeaturesOnlyInResources() {
        Map<String, Set<String>> found = new TreeMap<>();
        for (JavaClass c : classes) {
            String from = topLevel(c);
            if (isResource(c)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass();
                String api = apiPackage(target);
                if (!inBase(target) || api == null || topLevel(target).equals(from)) {
                    continue;
                }
                found.computeIfAbsent(local(outermost(c)) + " -> " + api, k -> new TreeSet<>()).add(local(target));
            }
        }
        Map<String, Set<String>> broken = new TreeMap<>(found);
        broken.keySet().removeAll(KNOWN_API_USES);
        assertNoEdges("another feature's api records used below the edge (map them in a resource, or give the"
                + " service a domain record):", broken);
        Set<String> stale = new TreeSet<>(KNOWN_API_USES);
        stale.removeAll(found.keySet());
        assertEquals(Set.of(), stale, "entries of LayersTest.KNOWN_API_USES no longer needed: remove them");
    }

    /**
     * HTTP at the edge: {@code common.error.ProblemException} (an HTTP problem: a status and a
     * problem type) is used only by resources, request filters and the error layer
     * ({@code common.error}). Services and every other class throw a {@code DomainException}, which
     * {@code ProblemMappers} maps to the same problem. One line per class that uses it elsewhere.
     */
    @Test
    void problemExceptionIsUsedOnlyAtTheEdge() {
        String problem = BASE + ".common.error.ProblemException";
        Map<String, Set<String>> found = new TreeMap<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().equals(BASE + ".common.error") || isResource(c) || isRequestFilter(outermost(c))) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (d.getTargetClass().getName().equals(problem)) {
                    found.computeIfAbsent(local(outermost(c)) + " -> common.error.ProblemException",
                            k -> new TreeSet<>()).add(d.getDescription());
                }
            }
        }
        assertNoEdges("ProblemException used below the edge (throw a common.error.DomainException; ProblemMappers maps"
                + " it):", found);
    }

    /**
     * True for a request filter: a class with {@code @ServerRequestFilter} or {@code @ServerResponseFilter}
     * methods, a JAX-RS filter or reader interceptor, or a Vert.x route installer ({@code @Observes Router}).
     */
    private static boolean isRequestFilter(JavaClass c) {
        boolean annotated = c.getMethods().stream().anyMatch(m -> m.isAnnotatedWith(ServerRequestFilter.class)
                || m.isAnnotatedWith(ServerResponseFilter.class)
                || m.getRawParameterTypes().stream().anyMatch(t -> t.isEquivalentTo(Router.class)));
        return annotated || c.isAssignableTo(ContainerRequestFilter.class) || c.isAssignableTo(ContainerResponseFilter.class)
                || c.isAssignableTo(ReaderInterceptor.class);
    }

    /** The top-level package under io.tapline ({@code run} for {@code io.tapline.run.exec.X}). */
    private static String topLevel(JavaClass c) {
        String pkg = c.getPackageName();
        if (pkg.equals(BASE)) {
            return ROOT;
        }
        String rest = pkg.substring(BASE.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    private static boolean inBase(JavaClass c) {
        return c.getPackageName().equals(BASE) || c.getPackageName().startsWith(BASE + ".");
    }

    /**
     * The feature {@code api} package holding the class ({@code pipeline.api}, {@code plugin.install.api}),
     * or null; {@code common.api} holds shared HTTP helpers, not a feature's records.
     */
    private static String apiPackage(JavaClass c) {
        if (!inBase(c) || topLevel(c).equals("common") || topLevel(c).equals(ROOT)) {
            return null;
        }
        String pkg = c.getPackageName().substring(BASE.length() + 1);
        int at = (pkg + ".").indexOf(".api.");
        return at < 0 ? null : pkg.substring(0, at + ".api".length());
    }

    private static boolean isResource(JavaClass c) {
        return outermost(c).isAnnotatedWith(Path.class);
    }

    private static JavaClass outermost(JavaClass c) {
        JavaClass o = c;
        while (o.getEnclosingClass().isPresent()) {
            o = o.getEnclosingClass().get();
        }
        return o;
    }

    private static String local(JavaClass c) {
        return c.getName().substring(BASE.length() + 1);
    }

    /** Fails with one line per edge: the edge, then up to three class dependencies behind it. */
    private static void assertNoEdges(String title, Map<String, Set<String>> edges) {
        if (edges.isEmpty()) {
            return;
        }
        List<String> lines = new ArrayList<>();
        edges.forEach((edge, why) -> {
            List<String> some = why.stream().limit(3).toList();
            lines.add(edge + ": " + String.join("; ", some) + (why.size() > 3 ? "; +" + (why.size() - 3) + " more" : ""));
        });
        fail(title + "\n" + String.join("\n", lines));
    }
}

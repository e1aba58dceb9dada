package io.tapline.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The roles inside {@code io.tapline.state} (its package-info), checked on the compiled main
 * classes as {@link LayersTest} checks the top-level packages: bottom first {@code json},
 * {@code model}, {@code store}, {@code mirror}, the services ({@code state} itself), {@code api};
 * a role uses only roles below it, so the store reaches the mirror only through its
 * {@code MirrorWrites} port, and nothing below the API knows its records.
 */
class StateLayersTest {

    private static final String STATE = "io.tapline.state";
    /** The roles, bottom first: sub-package name, or "" for the services of the package itself. */
    static final List<String> ROLES = List.of("json", "model", "store", "mirror", "", "api");

    private static JavaClasses classes;

    @BeforeAll
    static void importStateClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(STATE);
        assertTrue(classes.size() > 20, "expected the classes of " + STATE + ", found " + classes.size());
    }

    @Test
    void everyStateClassHasARole() {
        Set<String> packages = new TreeSet<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            boolean placed = ROLES.stream().anyMatch(r -> r.isEmpty() ? pkg.equals(STATE)
                    : pkg.equals(STATE + "." + r) || pkg.startsWith(STATE + "." + r + "."));
            if (!placed) {
                packages.add(pkg);
            }
        }
        assertEquals(Set.of(), packages, "packages of state in no role: place each in StateLayersTest.ROLES and in"
                + " the package-info of io.tapline.state");
    }

    @Test
    void rolesUseOnlyRolesBelowThem() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("json").definedBy(STATE + ".json..")
                .layer("model").definedBy(STATE + ".model..")
                .layer("store").definedBy(STATE + ".store..")
                .layer("mirror").definedBy(STATE + ".mirror..")
                .layer("services").definedBy(STATE)
                .layer("api").definedBy(STATE + ".api..")
                .whereLayer("api").mayNotBeAccessedByAnyLayer()
                .whereLayer("services").mayOnlyBeAccessedByLayers("api")
                .whereLayer("mirror").mayOnlyBeAccessedByLayers("services", "api")
                .whereLayer("store").mayOnlyBeAccessedByLayers("mirror", "services", "api")
                .whereLayer("model").mayOnlyBeAccessedByLayers("store", "mirror", "services", "api")
                .whereLayer("json").mayOnlyBeAccessedByLayers("model", "store", "mirror", "services", "api")
                .check(classes);
    }
}

package io.tapline.support;

import io.quarkus.test.common.QuarkusTestResource;

/** Applies {@link TestDatabase} to every {@code @QuarkusTest} in the module. */
@QuarkusTestResource(value = TestDatabase.class, restrictToAnnotatedClass = false)
public final class GlobalTestResources {
    private GlobalTestResources() {
    }
}

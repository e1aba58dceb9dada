package io.tapline.support;

import io.quarkus.test.common.QuarkusTestResource;

/** Applies {@link TestDatabase} and {@link TestStateMirror} to every {@code @QuarkusTest} in the module. */
@QuarkusTestResource(value = TestDatabase.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = TestStateMirror.class, restrictToAnnotatedClass = false)
public final class GlobalTestResources {
    private GlobalTestResources() {
    }
}

package io.tapline.plugin;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;

/** A plugin made through the API with {@code inheritFrom} takes its parent's executable, as the import does. */
@QuarkusTest
class PluginInheritanceTest {

    @Test
    void inheritFromWithoutExecutableTakesTheParents() {
        String parent = unique("tap-parent");
        json().body(Map.of("name", parent, "executable", "/usr/bin/env", "capabilities", List.of("state")))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        String child = unique("tap-child");
        json().body(Map.of("name", child, "inheritFrom", parent, "config", Map.of("host", "eu")))
                .post("/api/v1/plugins/extractors").then().statusCode(201)
                .body("executable", equalTo("/usr/bin/env")).body("inheritFrom", equalTo(parent));
        // PUT too; an own executable still wins.
        json().body(Map.of("inheritFrom", parent)).put("/api/v1/plugins/extractors/" + child).then().statusCode(200)
                .body("executable", equalTo("/usr/bin/env"));
        json().body(Map.of("inheritFrom", parent, "executable", "/bin/true")).put("/api/v1/plugins/extractors/" + child)
                .then().statusCode(200).body("executable", equalTo("/bin/true"));
        // No such parent (of this type): executable is required, as before.
        problem(json().body(Map.of("name", unique("tap-orphan"), "inheritFrom", unique("nobody")))
                .post("/api/v1/plugins/extractors").then(), 400, "validation");
    }
}

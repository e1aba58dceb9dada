package io.tapline.plugin;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/** A plugin whose executable this replica cannot start is accepted, with a warning that says so. */
@QuarkusTest
class PluginWarningsTest {

    @Test
    void anExecutableNotOnPathIsAcceptedWithAWarningUntilItIsFound() {
        String name = unique("tap-csv");
        json().body("{\"name\":\"" + name + "\",\"executable\":\"tap-not-installed-here\"}")
                .post("/api/v1/plugins/extractors")
                .then().statusCode(201)
                .body("warnings", hasSize(1))
                .body("warnings[0]", equalTo("The executable 'tap-not-installed-here' was not found on PATH on this"
                        + " replica, so runs of this plugin fail here: install it on every replica, or give the plugin"
                        + " a pip_url so that Tapline installs it (README \"Connectors install themselves\"); POST"
                        + " /api/v1/plugins/extractors/" + name + ":test then checks it."));
        json().get("/api/v1/plugins/extractors/" + name).then().statusCode(200).body("warnings", hasSize(1));
        json().contentType("application/merge-patch+json").body("{\"executable\":\"python3\"}")
                .patch("/api/v1/plugins/extractors/" + name).then().statusCode(200).body("warnings", empty());
    }

    @Test
    void aPluginWithAPipUrlIsNotWarnedAboutItsExecutableSinceTheServiceInstallsIt() {
        // regression: the warning said Tapline does not install pip_url, even next to "install": {"installed": true}
        String name = unique("tap-pip");
        json().body("{\"name\":\"" + name + "\",\"executable\":\"tap-not-installed-here\",\"pipUrl\":\"tap-csv==1.2\"}")
                .post("/api/v1/plugins/extractors")
                .then().statusCode(201)
                .body("warnings", empty())
                .body("install.installed", equalTo(false));
    }

    @Test
    void anAbsolutePathThatIsNotExecutableIsWarnedAndAPresentOneIsNot() {
        String missing = unique("tap-abs");
        json().body("{\"name\":\"" + missing + "\",\"executable\":\"/nonexistent/bin/tap\"}")
                .post("/api/v1/plugins/extractors").then().statusCode(201)
                .body("warnings[0]", containsString("'/nonexistent/bin/tap' is not an executable file on this replica"));
        String present = unique("tap-sh");
        json().body("{\"name\":\"" + present + "\",\"executable\":\"/bin/sh\"}")
                .post("/api/v1/plugins/extractors").then().statusCode(201).body("warnings", empty());
    }
}

package io.tapline.ui;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

/** The console's pages over plain HTTP: redirects, headers, escaping, bundled libraries, no token handed out. */
@QuarkusTest
class UiPagesTest {

    @Test
    void rootAndUiRedirectToThePipelines() {
        RestAssured.given().redirects().follow(false).get("/").then().statusCode(302)
                .header("Location", endsWith("/ui/pipelines"));
        // Relative, so a browser behind a proxy that ends TLS is not sent to http://.
        RestAssured.given().redirects().follow(false).header("X-Forwarded-Proto", "https").get("/ui").then()
                .statusCode(302).header("Location", equalTo("/ui/pipelines"));
        RestAssured.given().redirects().follow(false).get("/ui/").then().statusCode(302)
                .header("Location", equalTo("/ui/pipelines"));
        // Uptime checks and load balancers probe with HEAD.
        RestAssured.given().redirects().follow(false).head("/").then().statusCode(302)
                .header("Location", endsWith("/ui/pipelines"));
    }

    @Test
    void pagesCarryAStrictContentSecurityPolicyAndNoInlineScript() {
        for (String path : new String[] {"/ui/pipelines", "/ui/pipelines/demo", "/ui/runs/0190", "/ui/states",
                "/ui/states/dev:a-to-b", "/ui/audit", "/ui/signin"}) {
            String html = RestAssured.given().get(path).then().statusCode(200)
                    .contentType(containsString("text/html"))
                    .header("Content-Security-Policy", equalTo(UiHeaders.CSP))
                    .header("X-Frame-Options", "DENY")
                    .header("X-Content-Type-Options", "nosniff")
                    .extract().asString();
            // Every <script> has a src: nothing inline for the policy to refuse.
            org.junit.jupiter.api.Assertions.assertFalse(html.matches("(?s).*<script(?![^>]*\\bsrc=)[^>]*>.*"), path);
        }
        RestAssured.given().get("/ui/js/console.js").then().statusCode(200)
                .header("Content-Security-Policy", equalTo(UiHeaders.CSP));
    }

    @Test
    void namesInThePathAreEscaped() {
        RestAssured.given().get("/ui/pipelines/<img src=x onerror=alert(1)>").then().statusCode(200)
                .body(containsString("&lt;img src=x onerror=alert(1)&gt;"))
                .body(not(containsString("<img src=x")));
    }

    @Test
    void chartLibraryIsServedFromTheWebJar() {
        RestAssured.given().get("/webjars/uplot/dist/uPlot.iife.min.js").then().statusCode(200)
                .body(containsString("uPlot"));
    }

    @Test
    void sessionTellsTheCallersNameAndRolesFromTheToken() {
        RestAssured.given().header("Authorization", Tokens.bearer(Tokens.of("ops-1", "operator"))).get("/ui/session")
                .then().statusCode(200).body("name", equalTo("ops-1")).body("roles", equalTo(java.util.List.of("operator")));
        RestAssured.given().get("/ui/session").then().statusCode(401);
    }

    @Test
    void noDevTokenOutsideDevMode() {
        RestAssured.given().get("/ui/dev-token").then().statusCode(404);
    }
}

package io.tapline.support;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;

import java.util.UUID;

import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.containsString;

/** Small helpers for REST tests. */
public final class Api {

    private Api() {
    }

    /** A JSON request with an admin token ({@link Tokens#admin()}). */
    public static RequestSpecification json() {
        return anonymous().header("Authorization", Tokens.bearer(Tokens.admin()));
    }

    /** A JSON request with no token. */
    public static RequestSpecification anonymous() {
        return RestAssured.given().contentType(ContentType.JSON).accept(ContentType.JSON);
    }

    /** A JSON request with the given token. */
    public static RequestSpecification as(String token) {
        return anonymous().header("Authorization", Tokens.bearer(token));
    }

    /** A unique lowercase name with the given prefix, valid under Meltano's plugin-name rules. */
    public static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Creates a plugin with the given executable and returns its name. */
    public static String plugin(String type, String name, String executable) {
        json().body("{\"name\":\"" + name + "\",\"executable\":\"" + executable + "\"}")
                .post("/api/v1/plugins/" + type).then().statusCode(201);
        return name;
    }

    /** Asserts a problem+json response of the given status and type slug, with no Java type names. */
    public static ValidatableResponse problem(ValidatableResponse r, int status, String slug) {
        return r.statusCode(status)
                .contentType("application/problem+json")
                .body("type", equalTo("urn:tapline:problem:" + slug))
                .body("status", equalTo(status))
                .body("detail", not(containsString("java.")))
                .body("detail", not(containsString("io.tapline")))
                .body("detail", not(containsString("Exception")));
    }
}

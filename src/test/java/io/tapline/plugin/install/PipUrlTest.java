package io.tapline.plugin.install;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Meltano's pip_url format, split as shell words, with every pip option but -e refused. */
class PipUrlTest {

    @Test
    void splitsRequirementsEditablesUrlsAndQuotedSpecifiers() {
        assertEquals(List.of("tap-x==1.2", "-e", "./plugins/tap-y", "git+https://github.com/o/tap-z.git@v1",
                        "tap-w >= 2, < 3", "/wheels/tap_v-1.0-py3-none-any.whl", "pkg[extra]; python_version>='3.8'",
                        "it's"),
                PipUrl.parse("tap-x==1.2  -e ./plugins/tap-y\tgit+https://github.com/o/tap-z.git@v1 \"tap-w >= 2, < 3\""
                        + " /wheels/tap_v-1.0-py3-none-any.whl \"pkg[extra]; python_version>='3.8'\" it\\'s")
                        .pipUrl().words());
        assertEquals(List.of("meltanolabs-tap-github==1.0", "singer-sdk"),
                PipUrl.parse("meltanolabs-tap-github==1.0 singer-sdk").pipUrl().requirements());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "tap-x --index-url https://evil.example/simple",
            "tap-x --index-url=https://evil.example/simple",
            "tap-x '--extra-index-url=https://evil.example/simple'",
            "tap-x \"--trusted-host\" evil.example",
            "-r requirements.txt",
            "-c constraints.txt tap-x",
            "tap-x -i https://evil.example",
            "tap-x --no-deps",
            "tap-x \\--pre",
            "-e --index-url=https://evil.example",
            "tap-x -e",
            "--editable=./tap",
    })
    void refusesEveryPipOptionButEditable(String pipUrl) {
        PipUrl.Result r = PipUrl.parse(pipUrl);
        assertNull(r.pipUrl(), pipUrl);
        assertNotNull(r.error(), pipUrl);
    }

    @Test
    void namesTheRefusedOption() {
        assertEquals("passes the pip option '--index-url'; only requirement specifiers and -e are accepted (the index"
                        + " and other pip options are the service setting tapline.plugins.pip-args)",
                PipUrl.parse("tap-x '--index-url=https://evil.example/simple'").error());
        assertEquals("has an unclosed double quote", PipUrl.parse("tap-x \"tap-y").error());
        assertTrue(PipUrl.parse("  ").error().startsWith("is empty"));
        assertTrue(PipUrl.parse("tap-x\u0000").error().contains("control"));
    }

    @Test
    void checksMeltanosPythonField() {
        assertTrue(PipUrl.checkPython("python3.11").isEmpty());
        assertTrue(PipUrl.checkPython("/usr/bin/python3").isEmpty());
        assertTrue(PipUrl.checkPython("python3 -c 'import os'").isPresent());
        assertTrue(PipUrl.checkPython("../python").isPresent());
        assertTrue(PipUrl.checkPython("/opt/../bin/python").isPresent());
    }
}

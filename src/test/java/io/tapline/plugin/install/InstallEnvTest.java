package io.tapline.plugin.install;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link InstallEnv}: the allow-list of the service's variables that an install's processes get. */
class InstallEnvTest {

    @Test
    void keepsOnlyTheAllowListAndSetsWhatTheInstallNeeds() {
        Map<String, String> service = new LinkedHashMap<>();
        service.put("PATH", "/opt/bin:/usr/bin");
        service.put("HOME", "/root");
        service.put("LANG", "C.UTF-8");
        service.put("LC_ALL", "C.UTF-8");
        service.put("HTTPS_PROXY", "http://proxy:3128");
        service.put("no_proxy", "localhost");
        service.put("PIP_INDEX_URL", "https://pypi.example/simple");
        service.put("PIP_TRUSTED_HOST", "pypi.example");
        service.put("SSL_CERT_FILE", "/etc/ssl/ca.pem");
        service.put("QUARKUS_DATASOURCE_PASSWORD", "s3cret");
        service.put("TAPLINE_SECRETS_ENCRYPTION_KEY", "a2V5");
        service.put("MP_JWT_VERIFY_PUBLICKEY", "pem");
        service.put("AWS_SECRET_ACCESS_KEY", "aws");
        service.put("PYTHONPATH", "/evil");
        service.put("VIRTUAL_ENV", "/venv");
        service.put("TMPDIR", "/var/tmp/service");

        Map<String, String> env = InstallEnv.of(service, Path.of("/plugins/extractors/tap/.home"),
                Path.of("/plugins/extractors/tap/.tmp"));

        Map<String, String> want = new LinkedHashMap<>();
        want.put("HOME", "/plugins/extractors/tap/.home");
        want.put("HTTPS_PROXY", "http://proxy:3128");
        want.put("LANG", "C.UTF-8");
        want.put("LC_ALL", "C.UTF-8");
        want.put("PATH", "/opt/bin:/usr/bin");
        want.put("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        want.put("PIP_INDEX_URL", "https://pypi.example/simple");
        want.put("PIP_NO_INPUT", "1");
        want.put("PIP_TRUSTED_HOST", "pypi.example");
        want.put("PYTHONUNBUFFERED", "1");
        want.put("SSL_CERT_FILE", "/etc/ssl/ca.pem");
        want.put("TMPDIR", "/plugins/extractors/tap/.tmp");
        want.put("no_proxy", "localhost");
        assertEquals(want, env);
    }

    @Test
    void aServiceWithoutPathGetsTheUsualOne() {
        assertEquals(InstallEnv.DEFAULT_PATH, InstallEnv.of(Map.of(), Path.of("/h"), Path.of("/t")).get("PATH"));
    }
}

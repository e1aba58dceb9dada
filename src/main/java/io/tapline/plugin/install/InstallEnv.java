package io.tapline.plugin.install;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The environment of the processes of an install ({@code python -m venv}, pip, uv, and the build
 * backends and VCS clients pip starts): built from an allow-list of the service's variables, never
 * the service's whole environment, so that a build backend (code from the pip_url, run by pip for a
 * source distribution, a local path or a VCS URL) sees no database password, encryption key or
 * other service setting.
 *
 * <p>Kept: {@link #NAMES} (locale, time zone, proxies, CA bundles, and pip's and uv's index, trust,
 * cache and binary settings) and every {@code LC_*} variable. Set: {@code PATH} (the service's, or
 * {@value #DEFAULT_PATH}), {@code HOME} and {@code TMPDIR} (given: the service's own when the
 * install runs as the service's user, a directory of the install user's under the plugin's directory
 * with {@code tapline.runner.run-as-user}), {@code PIP_DISABLE_PIP_VERSION_CHECK=1},
 * {@code PIP_NO_INPUT=1}, {@code PYTHONUNBUFFERED=1}. Everything else (PYTHONPATH, PYTHONHOME,
 * VIRTUAL_ENV, QUARKUS_*, TAPLINE_*, credentials of any kind) is left out. Pure.
 */
public final class InstallEnv {

    /** The service's variables an install keeps (besides {@code LC_*}), by exact name. */
    public static final List<String> NAMES = List.of(
            "LANG", "LANGUAGE", "TZ",
            "http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
            "ALL_PROXY",
            "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
            "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_TRUSTED_HOST", "PIP_CERT",
            "PIP_CLIENT_CERT", "PIP_PROXY", "PIP_TIMEOUT", "PIP_DEFAULT_TIMEOUT", "PIP_RETRIES", "PIP_CONFIG_FILE",
            "PIP_ISOLATED", "PIP_NO_CACHE_DIR", "PIP_CACHE_DIR", "PIP_PREFER_BINARY", "PIP_ONLY_BINARY",
            "PIP_NO_BINARY", "PIP_USE_FEATURE", "PIP_KEYRING_PROVIDER",
            "UV_INDEX", "UV_DEFAULT_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS", "UV_NO_INDEX",
            "UV_INDEX_STRATEGY", "UV_INSECURE_HOST", "UV_NATIVE_TLS", "UV_HTTP_TIMEOUT", "UV_CONCURRENT_DOWNLOADS",
            "UV_CACHE_DIR", "UV_NO_CACHE", "UV_OFFLINE", "UV_LINK_MODE", "UV_PYTHON_DOWNLOADS");

    /** {@code PATH} when the service has none. */
    public static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

    private InstallEnv() {
    }

    /**
     * The environment of an install's processes.
     *
     * @param service the service's environment ({@code System.getenv()})
     * @param home the {@code HOME} to give (pip's and uv's caches go below it)
     * @param tmp the {@code TMPDIR} to give
     * @return a new map, sorted by name
     */
    public static Map<String, String> of(Map<String, String> service, Path home, Path tmp) {
        Map<String, String> env = new TreeMap<>();
        for (Map.Entry<String, String> e : service.entrySet()) {
            String name = e.getKey();
            if (NAMES.contains(name) || name.startsWith("LC_")) {
                env.put(name, e.getValue());
            }
        }
        String path = service.get("PATH");
        env.put("PATH", path == null || path.isBlank() ? DEFAULT_PATH : path);
        env.put("HOME", home.toString());
        env.put("TMPDIR", tmp.toString());
        env.put("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        env.put("PIP_NO_INPUT", "1");
        env.put("PYTHONUNBUFFERED", "1");
        return env;
    }
}

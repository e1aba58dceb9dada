package io.tapline.invocation;

import io.tapline.common.config.TaplineConfig;
import io.tapline.plugin.install.PipUrl;
import io.tapline.plugin.install.PipUrlReferences;
import io.tapline.plugin.install.PluginInstallService;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.LinkedHashMap;
import java.util.Set;

/**
 * Resolves a pip_url's references with the same {@link ConfigResolver} rules as a run's config
 * ({@code ${env:NAME}} only for allowed variables, {@code ${secret:NAME}} from the secrets
 * directory, {@code ${file:...}} with its path checks, {@code ${NAME}} from the plugin's env and the
 * inherited variables); a pip_url without {@code $} is returned as it is.
 */
@ApplicationScoped
public class InstallReferences implements PipUrlReferences {

    private final TaplineConfig config;

    public InstallReferences(TaplineConfig config) {
        this.config = config;
    }

    @Override
    public Resolved resolve(PluginInstallService.Target target, PipUrl url) {
        if (!url.hasReferences()) {
            return new Resolved(url, Set.of());
        }
        ConfigResolver resolver = ConfigResolver.forRun(config, new LinkedHashMap<>()).withPluginEnv(target.env());
        String where = target.type().id() + "/" + target.name() + " pip_url";
        try {
            PipUrl out = url.resolved(word -> resolver.resolveString(word, where));
            return new Resolved(out, Set.copyOf(resolver.secrets()));
        } catch (ConfigResolver.ConfigReferenceException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}

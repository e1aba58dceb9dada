package io.tapline.plugin.install;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * A separate process that installs one plugin environment with {@link EnvironmentBuilder}, as the
 * service does, so that a test can kill it mid-install (SIGKILL: the service dying).
 * Arguments: plugins dir, type, name, python, pip_url, executable; then pip options.
 */
public final class InstallProcessMain {

    private InstallProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        PluginEnvironment env = PluginEnvironment.of(Path.of(args[0]), args[1], args[2]);
        PipUrl url = PipUrl.parse(args[4]).pipUrl();
        List<String> pipArgs = List.of(args).subList(6, args.length);
        EnvironmentBuilder.Spec spec = new EnvironmentBuilder.Spec(env, args[3], url, args[4], pipArgs, null, args[5],
                Path.of("").toAbsolutePath(), Duration.ofMinutes(5), null);
        new EnvironmentBuilder(Clock.systemUTC()).build(spec, System.out::println, () -> false, () -> { });
        System.out.println("done");
    }
}

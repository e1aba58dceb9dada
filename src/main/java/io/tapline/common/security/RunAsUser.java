package io.tapline.common.security;

import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts Singer connectors as another user ({@code tapline.runner.run-as-user}) when the service
 * runs as root: the command is prefixed with {@code setpriv --reuid=<uid> --regid=<gid>
 * --clear-groups --} and the run directory (config, catalog and state files, 0600/0700) is handed
 * to that user first. A connector then cannot read the service's {@code /proc/<pid>/environ} (the
 * environment given at exec time, which Java cannot change afterwards), its memory or its files.
 * Unset: connectors run as the service's user.
 */
@ApplicationScoped
public class RunAsUser {

    private final Optional<String> user;
    private volatile long[] ids;

    public RunAsUser(TaplineConfig config) {
        this.user = config.runner().runAsUser().map(String::trim).filter(s -> !s.isEmpty());
    }

    /** True when connectors run as another user. */
    public boolean enabled() {
        return user.isPresent();
    }

    /**
     * The command to start, run as the configured user; hands {@code runDir} (recursively) to that
     * user first. Unchanged when no user is configured.
     *
     * @throws UncheckedIOException when the user is unknown or the directory cannot be handed over
     */
    public List<String> wrap(List<String> command, Path runDir) {
        if (user.isEmpty()) {
            return command;
        }
        long[] id = ids();
        try (Stream<Path> walk = Files.walk(runDir)) {
            for (Path p : walk.toList()) {
                Files.setAttribute(p, "unix:uid", (int) id[0], LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(p, "unix:gid", (int) id[1], LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the run directory cannot be handed to user " + user.get()
                    + " (tapline.runner.run-as-user; the service must run as root): " + e.getMessage(), e);
        }
        List<String> out = new ArrayList<>(List.of("setpriv", "--reuid=" + id[0], "--regid=" + id[1], "--clear-groups",
                "--"));
        out.addAll(command);
        return out;
    }

    private long[] ids() {
        long[] cached = ids;
        if (cached == null) {
            cached = new long[] {id("-u"), id("-g")};
            ids = cached;
        }
        return cached;
    }

    private long id(String flag) {
        try {
            Process p = new ProcessBuilder("id", flag, user.get()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0 || !out.matches("\\d+")) {
                throw new UncheckedIOException(new IOException("unknown user '" + user.get()
                        + "' (tapline.runner.run-as-user)"));
            }
            return Long.parseLong(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

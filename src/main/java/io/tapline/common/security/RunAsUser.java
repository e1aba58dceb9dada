package io.tapline.common.security;

import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Starts Singer connectors as another user ({@code tapline.runner.run-as-user}) when the service
 * runs as root: the command is prefixed with {@code setpriv --reuid=<uid> --regid=<gid>
 * --clear-groups --} and the run directory (config, catalog and state files, 0600/0700) is handed
 * to that user first. A connector then cannot read the service's {@code /proc/<pid>/environ} (the
 * environment given at exec time, which Java cannot change afterwards), its memory or its files.
 * Plugin installs (venv, pip and the build backends pip starts) run as the same user
 * ({@link #command}, {@link #give}). The user is a name ({@code id -u}/{@code id -g} give its
 * ids) or numeric {@code uid} or {@code uid:gid} (gid defaults to the uid), for images whose
 * passwd file does not list it. Unset: connectors run as the service's user.
 */
@ApplicationScoped
public class RunAsUser {

    private static final Pattern NUMERIC = Pattern.compile("(\\d{1,9})(?::(\\d{1,9}))?");

    private final Optional<String> user;
    private volatile long[] ids;

    @Inject
    public RunAsUser(TaplineConfig config) {
        this(config.runner().runAsUser());
    }

    /** @param user the user (name, {@code uid} or {@code uid:gid}); empty or blank: the service's own */
    public RunAsUser(Optional<String> user) {
        this.user = user.map(String::trim).filter(s -> !s.isEmpty());
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
        try (Stream<Path> walk = Files.walk(runDir)) {
            for (Path p : walk.toList()) {
                give(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the run directory cannot be handed to user " + user.get()
                    + " (tapline.runner.run-as-user; the service must run as root): " + e.getMessage(), e);
        }
        return command(command);
    }

    /**
     * The command to start as the configured user ({@code setpriv --reuid=<uid> --regid=<gid>
     * --clear-groups -- <command>}), without handing any file over; unchanged when no user is
     * configured.
     *
     * @throws UncheckedIOException when the user is unknown
     */
    public List<String> command(List<String> command) {
        if (user.isEmpty()) {
            return command;
        }
        long[] id = ids();
        List<String> out = new ArrayList<>(List.of("setpriv", "--reuid=" + id[0], "--regid=" + id[1], "--clear-groups",
                "--"));
        out.addAll(command);
        return out;
    }

    /**
     * Hands one file or directory (not what it holds; a symbolic link itself, never its target)
     * to the configured user and its group; nothing when no user is configured.
     *
     * @throws IOException when it cannot be changed (the service does not run as root)
     */
    public void give(Path path) throws IOException {
        if (user.isEmpty()) {
            return;
        }
        long[] id = ids();
        Files.setAttribute(path, "unix:uid", (int) id[0], LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", (int) id[1], LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * The configured user's uid, or empty when no user is configured.
     *
     * @throws UncheckedIOException when the user is unknown
     */
    public OptionalLong uid() {
        return user.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids()[0]);
    }

    /** The configured user as written (for messages), or empty. */
    public Optional<String> name() {
        return user;
    }

    private long[] ids() {
        long[] cached = ids;
        if (cached == null) {
            Matcher m = NUMERIC.matcher(user.get());
            cached = m.matches() ? new long[] {Long.parseLong(m.group(1)),
                    Long.parseLong(m.group(2) != null ? m.group(2) : m.group(1))} : new long[] {id("-u"), id("-g")};
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

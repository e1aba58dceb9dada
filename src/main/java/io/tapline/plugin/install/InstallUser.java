package io.tapline.plugin.install;

import io.tapline.common.security.PrivateFiles;
import io.tapline.common.security.RunAsUser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * The user an install's processes run as and what they get from the service: as
 * {@code tapline.runner.run-as-user} when it is set ({@link RunAsUser}, through {@code setpriv}),
 * else as the service's user; always with {@link InstallEnv}'s allow-listed environment. With
 * run-as-user, the service creates each directory the install writes ({@code env-<id>},
 * {@code .home}, {@code .tmp}) and hands it over, and takes the environment's top directory back
 * once pip is done.
 */
final class InstallUser {

    private final RunAsUser runAs;
    private final Map<String, String> serviceEnv;

    /**
     * @param runAs the configured install user (none: the service's)
     * @param serviceEnv the service's environment, of which {@link InstallEnv} keeps the allow-listed part
     */
    InstallUser(RunAsUser runAs, Map<String, String> serviceEnv) {
        this.runAs = runAs;
        this.serviceEnv = Map.copyOf(serviceEnv);
    }

    /**
     * The environment of the install's processes ({@link InstallEnv}): the service's HOME and
     * TMPDIR as the service's user; as the install user, {@code <dir>/.home} and a fresh
     * {@code <dir>/.tmp}, both that user's.
     */
    Map<String, String> environment(Path dir) throws IOException, EnvironmentBuilder.InstallFailure {
        if (!runAs.enabled()) {
            String home = serviceEnv.getOrDefault("HOME", System.getProperty("user.home"));
            String tmp = serviceEnv.getOrDefault("TMPDIR", System.getProperty("java.io.tmpdir"));
            return InstallEnv.of(serviceEnv, Path.of(home), Path.of(tmp));
        }
        Path home = dir.resolve(".home");
        Path tmp = dir.resolve(".tmp");
        InstallFiles.deleteTree(tmp);
        long uid;
        try {
            uid = runAs.uid().orElseThrow();
        } catch (RuntimeException e) {
            throw new EnvironmentBuilder.InstallFailure("the install cannot run as user "
                    + runAs.name().orElse("?") + " (tapline.runner.run-as-user): " + e.getMessage());
        }
        if (Files.exists(home, LinkOption.NOFOLLOW_LINKS)
                && ((Number) Files.getAttribute(home, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue() != uid) {
            InstallFiles.deleteTree(home); // another install user's (run-as-user was changed)
        }
        for (Path d : List.of(home, tmp)) {
            if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(d, PosixFilePermissions.asFileAttribute(PrivateFiles.DIRECTORY));
            }
            give(d);
        }
        return InstallEnv.of(serviceEnv, home, tmp);
    }

    /** Hands a directory the service created to the install user (nothing without run-as-user). */
    void give(Path p) throws EnvironmentBuilder.InstallFailure {
        try {
            runAs.give(p);
        } catch (IOException | RuntimeException e) {
            throw new EnvironmentBuilder.InstallFailure("the environment cannot be handed to user "
                    + runAs.name().orElse("?") + " (tapline.runner.run-as-user; the service must run as root): "
                    + e.getMessage());
        }
    }

    /** Takes the environment's top directory back from the install user (its contents stay that user's). */
    void takeBack(Path work) throws IOException {
        if (!runAs.enabled()) {
            return;
        }
        Path dir = work.getParent();
        Files.setAttribute(work, "unix:uid", Files.getAttribute(dir, "unix:uid"), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(work, "unix:gid", Files.getAttribute(dir, "unix:gid"), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * The command to start as the install user.
     *
     * @param what the step, for the message
     * @throws EnvironmentBuilder.InstallFailure when the user is unknown
     */
    List<String> command(List<String> cmd, String what) throws EnvironmentBuilder.InstallFailure {
        try {
            return runAs.command(cmd);
        } catch (RuntimeException e) {
            throw new EnvironmentBuilder.InstallFailure(what + " cannot run as user " + runAs.name().orElse("?")
                    + " (tapline.runner.run-as-user): " + e.getMessage());
        }
    }
}

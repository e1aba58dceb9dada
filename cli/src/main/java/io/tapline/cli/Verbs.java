package io.tapline.cli;

import io.tapline.cli.cmd.AuditCommand;
import io.tapline.cli.cmd.CompleteCommand;
import io.tapline.cli.cmd.CompletionCommand;
import io.tapline.cli.cmd.ConfigCommand;
import io.tapline.cli.cmd.DiscoverCommand;
import io.tapline.cli.cmd.Group;
import io.tapline.cli.cmd.InstallCommand;
import io.tapline.cli.cmd.LoginCommand;
import io.tapline.cli.cmd.ProfilesCommand;
import io.tapline.cli.cmd.ProjectCommand;
import io.tapline.cli.cmd.SelectCommand;
import io.tapline.cli.cmd.TokenCommand;
import io.tapline.cli.cmd.VersionCommand;
import io.tapline.cli.cmd.WebhooksCommand;
import io.tapline.cli.cmd.PipelinesCommand;
import io.tapline.cli.cmd.PluginsCommand;
import io.tapline.cli.cmd.RunCommand;
import io.tapline.cli.cmd.RunsCommand;
import io.tapline.cli.cmd.ScheduleCommand;
import io.tapline.cli.cmd.StateCommand;

import java.util.Map;

/** The top-level verbs of {@code tapline}, in help order, each built only when used. */
final class Verbs {

    /** The hidden verb the shell completion scripts call. */
    static final String COMPLETE = "__complete";
    /** The hidden verb the launcher runs to make the class data sharing archive ({@link Training}). */
    static final String TRAIN = "__train";

    static final Map<String, Class<?>> ALL = Group.of(
            "run", RunCommand.class,
            "runs", RunsCommand.class,
            "state", StateCommand.class,
            "pipelines", PipelinesCommand.class,
            "schedule", ScheduleCommand.class,
            "plugins", PluginsCommand.class,
            "config", ConfigCommand.class,
            "select", SelectCommand.class,
            "install", InstallCommand.class,
            "discover", DiscoverCommand.class,
            "project", ProjectCommand.class,
            "webhooks", WebhooksCommand.class,
            "audit", AuditCommand.class,
            "login", LoginCommand.class,
            "profiles", ProfilesCommand.class,
            "token", TokenCommand.class,
            "version", VersionCommand.class,
            "completion", CompletionCommand.class,
            COMPLETE, CompleteCommand.class);

    private Verbs() {
    }
}

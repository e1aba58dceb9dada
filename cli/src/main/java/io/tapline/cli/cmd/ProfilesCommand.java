package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.config.Profiles;
import io.tapline.cli.out.Table;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tapline profiles list|use|delete}: the named servers of the profiles file, as kubectl's contexts. */
@Command(name = "profiles", description = "List the stored profiles, choose the current one, delete one.",
        footerHeading = "%nExamples:%n", footer = {"  tapline profiles list", "  tapline profiles use prod"})
public final class ProfilesCommand implements Group {

    @Override
    public Map<String, Class<?>> subcommands() {
        return Group.of(
                "list", ListProfiles.class,
                "use", Use.class,
                "delete", Delete.class);
    }

    @Command(name = "list", description = "Every profile: name, URL, whether it holds a token; * marks the current one.",
            footerHeading = "%nExample:%n", footer = "  tapline profiles list")
    static final class ListProfiles implements Callable<Integer> {
        @Override
        public Integer call() {
            Profiles p = Session.current().profiles();
            Table t = new Table("CURRENT", "NAME", "URL", "TOKEN");
            p.all().forEach((name, profile) -> t.row(name.equals(p.current()) ? "*" : "", name,
                    profile.url() == null ? Session.DEFAULT_URL : profile.url(), profile.token() == null ? "no" : "yes"));
            if (t.isEmpty()) {
                Term.err().println("No profiles in " + p.file() + "; tapline login adds one.");
            } else {
                t.print(Term.out());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "use", description = "Make a profile the current one.", footerHeading = "%nExample:%n",
            footer = "  tapline profiles use prod")
    static final class Use implements Callable<Integer> {
        @Parameters(paramLabel = "PROFILE")
        String name;

        @Override
        public Integer call() {
            Profiles p = existing(name);
            p.use(name);
            p.save();
            Term.err().println("Profile '" + name + "' is now current.");
            return ExitCodes.OK;
        }
    }

    @Command(name = "delete", description = "Delete a profile and its token from the profiles file.",
            footerHeading = "%nExample:%n", footer = "  tapline profiles delete old")
    static final class Delete implements Callable<Integer> {
        @Parameters(paramLabel = "PROFILE")
        String name;

        @Override
        public Integer call() {
            Profiles p = existing(name);
            p.remove(name);
            p.save();
            Term.err().println("Profile '" + name + "' deleted.");
            return ExitCodes.OK;
        }
    }

    private static Profiles existing(String name) {
        Profiles p = Session.current().profiles();
        if (p.get(name) == null) {
            throw new CliException(ExitCodes.NOT_FOUND, "There is no profile '" + name + "' in " + p.file()
                    + "; tapline profiles list shows them.");
        }
        return p;
    }
}

package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens text in {@code $VISUAL}, else {@code $EDITOR}, else {@code vi}, as {@code meltano state
 * edit} does, in a private temporary file (mode 0600, deleted afterwards); returns what was saved.
 */
final class Editor {

    private Editor() {
    }

    /**
     * @param text what to edit
     * @param suffix the temporary file's suffix ({@code .json})
     * @return the saved text
     */
    static String edit(String text, String suffix) {
        String editor = env("VISUAL");
        if (editor == null) {
            editor = env("EDITOR");
        }
        if (editor == null) {
            editor = "vi";
        }
        Path file = null;
        try {
            file = Files.createTempFile("tapline-", suffix,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, text, StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(List.of(editor.trim().split("\\s+")));
            cmd.add(file.toString());
            int rc = new ProcessBuilder(cmd).inheritIO().start().waitFor();
            if (rc != 0) {
                throw new CliException(ExitCodes.CONFLICT, "The editor '" + editor + "' exited with " + rc
                        + "; nothing was changed.");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "Cannot start the editor '" + editor + "' (" + e.getMessage()
                    + "); set EDITOR to an editor on PATH.");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.FAILED, "Interrupted; nothing was changed.");
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a private temporary file: the system cleans it up
                }
            }
        }
    }

    private static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : v;
    }
}

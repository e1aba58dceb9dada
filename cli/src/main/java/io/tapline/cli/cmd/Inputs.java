package io.tapline.cli.cmd;

import io.tapline.cli.CliException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Input given as an argument or as a file ({@code --input-file}, Meltano's form). */
final class Inputs {

    private Inputs() {
    }

    /**
     * The text of exactly one of {@code value} and {@code file}.
     *
     * @param names how the two are called, for the message ({@code "--input-file,STATE"})
     * @throws CliException (usage) when both or neither are given, or the file cannot be read
     */
    static String oneOf(String value, Path file, String names) {
        if ((value == null) == (file == null)) {
            throw CliException.usage("Must provide exactly one of: " + names + ".");
        }
        return value != null ? value : read(file);
    }

    /** A file's text (UTF-8); {@code -} reads stdin. */
    static String read(Path file) {
        try {
            if (file.toString().equals("-")) {
                return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!Files.isRegularFile(file)) {
                throw CliException.usage("The file '" + file + "' does not exist.");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw CliException.usage("Cannot read '" + file + "': " + e.getMessage() + ".");
        }
    }

    /** A file's bytes; {@code -} reads stdin. */
    static byte[] bytes(Path file) {
        try {
            if (file.toString().equals("-")) {
                return System.in.readAllBytes();
            }
            if (!Files.isRegularFile(file)) {
                throw CliException.usage("The file '" + file + "' does not exist.");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw CliException.usage("Cannot read '" + file + "': " + e.getMessage() + ".");
        }
    }
}

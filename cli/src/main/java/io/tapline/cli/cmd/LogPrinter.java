package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.Session;
import io.tapline.cli.http.Paths;
import io.tapline.cli.http.Problems;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Term;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Prints a run's log ({@code GET /api/v1/runs/{id}/log}, {@code follow=true} while it lasts), line
 * by line, flushed as it comes. On a terminal each line's time is dim and its component
 * ({@code extractor | }, {@code loader | }, ...) coloured, and a connector's escape sequences and
 * control characters are taken out ({@link Term#printable}); into a file or a pipe the lines go as
 * the service sent them (it has already masked secrets).
 */
final class LogPrinter {

    /** Held while a line is written; a question (Ctrl-C) holds it to pause the log. */
    final ReentrantLock lock = new ReentrantLock();

    /**
     * Prints the log; returns when it ends (with {@code follow}, when the run has ended and
     * everything was sent, or when the connection broke).
     */
    void print(String runId, boolean follow) {
        String path = "/api/v1/runs/" + Paths.seg(runId) + "/log";
        HttpResponse<InputStream> r = Session.current().api().get(path).header("Accept", "text/plain")
                .flag("follow", follow).stream();
        if (r.statusCode() != 200) {
            byte[] body;
            try (InputStream in = r.body()) {
                body = in.readAllBytes();
            } catch (IOException e) {
                body = new byte[0];
            }
            throw Problems.of(new Response(r.statusCode(), r.headers(), body, "GET", r.uri(),
                    Session.current().api().hasToken()));
        }
        PrintStream out = Term.out();
        boolean color = Term.color();
        boolean tty = Term.stdoutTty();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lock.lock();
                try {
                    String shown = tty ? Term.printable(line) : line;
                    out.println(color ? colour(shown) : shown);
                    if (!in.ready()) {
                        out.flush();
                    }
                } finally {
                    lock.unlock();
                }
            }
        } catch (IOException e) {
            if (!follow) {
                throw new CliException(ExitCodes.UNREACHABLE, "The log of run " + runId + " stopped coming ("
                        + e.getMessage() + "); run the command again.");
            }
            Term.err().println("tapline: the log stopped coming (" + e.getMessage() + "); waiting for the run's end.");
        } finally {
            out.flush();
        }
    }

    /** {@code <time> <component> | <text>} with the time dim and the component in its colour. */
    static String colour(String line) {
        int space = line.indexOf(' ');
        int bar = line.indexOf(" | ");
        if (space < 0 || bar < space) {
            return line;
        }
        String time = line.substring(0, space);
        String component = line.substring(space + 1, bar);
        String text = line.substring(bar + 3);
        String code = switch (component.contains(":") ? component.substring(0, component.indexOf(':')) : component) {
            case "extractor" -> "36";
            case "loader" -> "35";
            case "mapper" -> "34";
            case "transform", "utility" -> "33";
            default -> "1";
        };
        boolean error = text.contains("ERROR") || text.contains("Traceback") || text.contains("CRITICAL");
        return "\u001b[2m" + time + "\u001b[0m \u001b[" + code + "m" + component + "\u001b[0m | "
                + (error ? "\u001b[31m" + text + "\u001b[0m" : text);
    }
}

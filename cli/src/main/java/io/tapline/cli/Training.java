package io.tapline.cli;

import io.tapline.cli.http.Api;
import io.tapline.cli.http.Response;
import io.tapline.cli.out.Json;
import io.tapline.cli.out.MeltanoJson;


import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * The hidden {@code tapline __train}: what the launcher runs once per JDK and jar with
 * {@code -XX:ArchiveClassesAtExit}, so that the AppCDS archive holds the classes of a typical
 * command, not only those of whichever command happened to run first. It builds the whole
 * command tree and its help, parses a few command lines, and sends requests with the JDK's
 * HTTP client to a one-connection HTTP server of its own on 127.0.0.1 (JSON, problem+json and a
 * streamed answer), reading them with Jackson. Nothing leaves the machine; it prints nothing.
 */
final class Training {

    private static final String STATE = "{\"singer_state\":{\"bookmarks\":{\"s\":{\"id\":1}}}}\n";

    private Training() {
    }

    static int run() throws IOException {
        CommandLine all = TaplineCli.commandLine(null);
        StringBuilder ignored = new StringBuilder();
        all.getSubcommands().values().forEach(c -> {
            ignored.append(c.getUsageMessage());
            c.getSubcommands().values().forEach(s -> ignored.append(s.getUsageMessage()));
        });
        all.parseArgs("state", "get", "x", "--format", "pretty");
        TaplineCli.commandLine(null).parseArgs("runs", "list", "--format", "json", "--limit", "5");
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> serve(server), "train-server");
            t.setDaemon(true);
            t.start();
            Api api = new Api(URI.create("http://127.0.0.1:" + server.getLocalPort()), "a.b.c");
            Response state = api.get("/api/v1/states/x").send();
            ignored.append(MeltanoJson.indent(state.text().trim()));
            Response list = api.get("/api/v1/runs").query("limit", 5).send();
            PrintWriter sink = new PrintWriter(OutputStream.nullOutputStream());
            sink.print(Json.pretty(list.json()));
            Response problem = api.post("/api/v1/runs/x/cancel").json("{}").send();
            ignored.append(problem.ok() ? "" : io.tapline.cli.http.Problems.of(problem).getMessage());
            try (InputStream in = api.get("/api/v1/runs/x/log").flag("follow", true).stream().body()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            // as every command ends (and its classes go into the archive too)
            api.close();
        }
        return ignored.length() > 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static void serve(ServerSocket server) {
        for (int i = 0; i < 4; i++) {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                String head = readHead(in);
                String body;
                String type = "application/json";
                int status = 200;
                if (head.startsWith("GET /api/v1/states")) {
                    body = STATE;
                } else if (head.startsWith("GET /api/v1/runs?")) {
                    body = "{\"items\":[{\"id\":\"r\",\"status\":\"SUCCEEDED\",\"durationMs\":12,\"streams\":{\"s\":"
                            + "{\"records\":1}}}],\"nextCursor\":null}";
                } else if (head.startsWith("POST")) {
                    int len = contentLength(head);
                    in.readNBytes(len);
                    status = 409;
                    type = "application/problem+json";
                    body = "{\"type\":\"urn:tapline:problem:invalid-transition\",\"title\":\"t\",\"status\":409,"
                            + "\"detail\":\"The run has ended.\"}";
                } else {
                    type = "text/plain;charset=UTF-8";
                    body = "2026-01-01T00:00:00Z service | run SUCCEEDED\n";
                }
                byte[] b = body.getBytes(StandardCharsets.UTF_8);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: " + type + "\r\nContent-Length: " + b.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(b);
                out.flush();
            } catch (IOException e) {
                return;
            }
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        int state = 0;
        while ((c = in.read()) >= 0) {
            b.write(c);
            state = (c == '\r' || c == '\n') ? state + 1 : 0;
            if (state == 4) {
                break;
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

}

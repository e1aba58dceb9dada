package io.tapline.plugin.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Small Python packages with a console-script Singer tap, made by the tests and installed offline
 * (no index: {@code %test.tapline.plugins.pip-args=--isolated,--no-index}).
 *
 * <ul>
 *   <li>{@link #tinyWheel}: {@code tap-tiny 1.0.0}, a pyproject.toml with the setuptools backend,
 *   built into a wheel by the machine's Python (Debian: python3, python3-setuptools and
 *   python3-wheel; setuptools 66 needs {@code wheel} for {@code bdist_wheel}). The wheel is built
 *   once, with {@code setuptools.build_meta.build_wheel}, because a virtual environment made by
 *   {@code python3 -m venv} has setuptools but no {@code wheel}, so neither
 *   {@code --no-build-isolation} nor an isolated build (which needs setuptools and wheel from an
 *   index) can build the source tree offline inside it.</li>
 *   <li>{@link #slowSource}: {@code tap-slow 2.0.0}, a source tree whose in-tree build backend
 *   (standard library only, {@code requires = []}, so an isolated build needs no index) waits
 *   while a {@code hold} file exists, so a test can stop an install half-way.</li>
 *   <li>{@link #setuptoolsSource}: {@code tap-offline 3.0.0}, a source tree with the setuptools
 *   backend (pyproject.toml and a setup.py), which pip can build offline only with setuptools and
 *   wheel from a wheelhouse or without build isolation; {@link #wheelhouse} is such a wheelhouse.</li>
 *   <li>{@link #envSource}: {@code tap-envdump 1.0.0}, a source tree whose build backend writes
 *   the environment and uid it was started with to a file, and counts its builds.</li>
 * </ul>
 */
final class TestPackages {

    static final Path ROOT = Path.of("target/test-packages").toAbsolutePath();

    /**
     * The tap: one SCHEMA, three RECORDs, one STATE on stream {@code tiny}; arguments ignored. It
     * says on stderr which virtual environment is active ({@code VIRTUAL_ENV}).
     */
    private static final String TAP = """
            import json
            import os
            import sys


            def main():
                sys.stderr.write("virtual env: " + os.environ.get("VIRTUAL_ENV", "-") + "\\n")
                sys.stderr.flush()
                messages = [
                    {"type": "SCHEMA", "stream": "tiny", "schema": {"properties": {"id": {"type": "integer"}}},
                     "key_properties": ["id"]},
                    {"type": "RECORD", "stream": "tiny", "record": {"id": 1}},
                    {"type": "RECORD", "stream": "tiny", "record": {"id": 2}},
                    {"type": "RECORD", "stream": "tiny", "record": {"id": 3}},
                    {"type": "STATE", "value": {"bookmarks": {"tiny": {"id": 3}}}},
                ]
                for m in messages:
                    sys.stdout.write(json.dumps(m) + "\\n")
                sys.stdout.flush()
            """;

    private static final String SLOW_BACKEND = """
            import base64
            import hashlib
            import os
            import time
            import zipfile

            HERE = os.path.dirname(os.path.abspath(__file__))
            DIST = "tap_slow-2.0.0.dist-info"
            FILES = {
                "tap_slow/__init__.py": open(os.path.join(HERE, "tap_slow.py"), "rb").read(),
                DIST + "/METADATA": b"Metadata-Version: 2.1\\nName: tap-slow\\nVersion: 2.0.0\\n",
                DIST + "/WHEEL": b"Wheel-Version: 1.0\\nGenerator: slow_backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
                DIST + "/entry_points.txt": b"[console_scripts]\\ntap-slow = tap_slow:main\\n",
            }


            def _hold():
                with open(os.path.join(HERE, "started"), "w") as f:
                    f.write(str(os.getpid()))
                while os.path.exists(os.path.join(HERE, "hold")):
                    time.sleep(0.05)


            def get_requires_for_build_wheel(config_settings=None):
                return []


            def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
                _hold()
                name = "tap_slow-2.0.0-py3-none-any.whl"
                record = []
                with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
                    for path, data in FILES.items():
                        z.writestr(path, data)
                        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
                    record.append(DIST + "/RECORD,,")
                    z.writestr(DIST + "/RECORD", "\\n".join(record) + "\\n")
                return name
            """;

    /**
     * An in-tree build backend (standard library only) that records each build: it appends a line
     * to {@code builds}, writes {@code {"uid": ..., "env": {...}}} (its own uid and os.environ)
     * to {@code env-<pid>.json} in the directory named by the file {@code dump_to}, then waits
     * while a {@code hold} file exists, and builds {@code tap-envdump 1.0.0}.
     */
    private static final String ENV_BACKEND = """
            import base64
            import hashlib
            import json
            import os
            import time
            import zipfile

            HERE = os.path.dirname(os.path.abspath(__file__))
            DIST = "tap_envdump-1.0.0.dist-info"
            FILES = {
                "tap_envdump/__init__.py": open(os.path.join(HERE, "tap_envdump.py"), "rb").read(),
                DIST + "/METADATA": b"Metadata-Version: 2.1\\nName: tap-envdump\\nVersion: 1.0.0\\n",
                DIST + "/WHEEL": b"Wheel-Version: 1.0\\nGenerator: env_backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
                DIST + "/entry_points.txt": b"[console_scripts]\\ntap-envdump = tap_envdump:main\\n",
            }


            def get_requires_for_build_wheel(config_settings=None):
                return []


            def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
                dump_to = open(os.path.join(HERE, "dump_to")).read().strip()
                with open(os.path.join(dump_to, "env-%d.json" % os.getpid()), "w") as f:
                    json.dump({"uid": os.getuid(), "env": dict(os.environ)}, f)
                with open(os.path.join(dump_to, "builds"), "a") as f:
                    f.write("%d\\n" % os.getpid())
                with open(os.path.join(dump_to, "started"), "w") as f:
                    f.write(str(os.getpid()))
                while os.path.exists(os.path.join(HERE, "hold")):
                    time.sleep(0.05)
                name = "tap_envdump-1.0.0-py3-none-any.whl"
                record = []
                with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
                    for path, data in FILES.items():
                        z.writestr(path, data)
                        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
                    record.append(DIST + "/RECORD,,")
                    z.writestr(DIST + "/RECORD", "\\n".join(record) + "\\n")
                return name
            """;

    private TestPackages() {
    }

    /** Whether this JVM built the wheel (one left in target/ by an earlier build may hold an older tap). */
    private static boolean built;

    /** The wheel of tap-tiny 1.0.0, built once per test JVM. */
    static synchronized Path tinyWheel() throws Exception {
        Path dist = ROOT.resolve("dist");
        Path wheel = dist.resolve("tap_tiny-1.0.0-py3-none-any.whl");
        if (built && Files.exists(wheel)) {
            return wheel;
        }
        Files.deleteIfExists(wheel);
        Path src = setuptoolsTree("tap-tiny", "tap-tiny", "1.0.0");
        Files.createDirectories(dist);
        run(src, buildPython(), "-c", "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))",
                dist.toString());
        if (!Files.exists(wheel)) {
            throw new IllegalStateException("the wheel was not built: " + wheel);
        }
        built = true;
        return wheel;
    }

    /** A fresh source tree of tap-slow (its own directory, with the hold file in place). */
    static Path slowSource(String name) throws IOException {
        Path src = ROOT.resolve(name);
        Files.createDirectories(src);
        Files.writeString(src.resolve("pyproject.toml"), """
                [build-system]
                requires = []
                build-backend = "slow_backend"
                backend-path = ["."]

                [project]
                name = "tap-slow"
                version = "2.0.0"
                """);
        Files.writeString(src.resolve("slow_backend.py"), SLOW_BACKEND);
        Files.writeString(src.resolve("tap_slow.py"), TAP);
        Files.writeString(src.resolve("hold"), "");
        Files.deleteIfExists(src.resolve("started"));
        return src;
    }

    /** A fresh source tree of tap-offline 3.0.0 (setuptools backend, console script {@code tap-offline}). */
    static Path setuptoolsSource(String name) throws IOException {
        return setuptoolsTree(name, "tap-offline", "3.0.0");
    }

    /**
     * A fresh source tree in {@code ROOT/<dir>} of the tap as distribution {@code dist}: pyproject.toml
     * with the setuptools backend, a setup.py, the module in {@code src/}, a console script named {@code dist}.
     */
    private static Path setuptoolsTree(String dir, String dist, String version) throws IOException {
        Path src = ROOT.resolve(dir);
        String module = dist.replace('-', '_');
        InstallFiles.deleteTree(src);
        Files.createDirectories(src.resolve("src").resolve(module));
        Files.writeString(src.resolve("pyproject.toml"), """
                [build-system]
                requires = ["setuptools"]
                build-backend = "setuptools.build_meta"

                [project]
                name = "%1$s"
                version = "%2$s"
                description = "A Singer tap for Tapline's install tests"

                [project.scripts]
                %1$s = "%3$s:main"
                """.formatted(dist, version, module));
        Files.writeString(src.resolve("setup.py"), "from setuptools import setup\n\nsetup()\n");
        Files.writeString(src.resolve("src").resolve(module).resolve("__init__.py"), TAP);
        return src;
    }

    /** What the tap at {@code exe} writes to stdout (it must exit within 30 s). */
    static String runTap(Path exe) throws Exception {
        Process p = new ProcessBuilder(exe.toString()).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(exe + " did not exit");
        }
        return out;
    }

    /**
     * A wheelhouse with setuptools and wheel, as {@code pip wheel setuptools wheel} makes on a
     * connected machine: made offline here by packing {@link #buildPython()}'s own installed ones
     * ({@link BuildRequirements#PACK}); use it with that interpreter.
     */
    static synchronized Path wheelhouse() throws Exception {
        Path dir = ROOT.resolve("wheelhouse");
        InstallFiles.deleteTree(dir);
        Files.createDirectories(dir);
        run(ROOT, buildPython(), "-c", BuildRequirements.PACK, dir.toString(), "setuptools", "wheel");
        try (var s = Files.list(dir)) {
            if (s.count() != 2) {
                throw new IllegalStateException("the wheelhouse lacks setuptools or wheel: " + dir);
            }
        }
        return dir;
    }

    /**
     * A fresh source tree of tap-envdump ({@link #ENV_BACKEND}) in its own directory, which writes
     * its dumps to {@code dumps} (created readable and writable by every user, as an install may
     * run as another user). With {@code hold}, its build waits until the {@code hold} file is
     * deleted.
     */
    static Path envSource(String name, Path dumps, boolean hold) throws IOException {
        Path src = ROOT.resolve(name);
        Files.createDirectories(src);
        Files.createDirectories(dumps);
        Files.setPosixFilePermissions(dumps, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.writeString(src.resolve("pyproject.toml"), """
                [build-system]
                requires = []
                build-backend = "env_backend"
                backend-path = ["."]

                [project]
                name = "tap-envdump"
                version = "1.0.0"
                """);
        Files.writeString(src.resolve("env_backend.py"), ENV_BACKEND);
        Files.writeString(src.resolve("tap_envdump.py"), TAP);
        Files.writeString(src.resolve("dump_to"), dumps.toString());
        if (hold) {
            Files.writeString(src.resolve("hold"), "");
        } else {
            Files.deleteIfExists(src.resolve("hold"));
        }
        return src;
    }

    /** The interpreter that builds the wheel: Debian's when it has setuptools and wheel, else python3. */
    static String buildPython() throws Exception {
        for (String candidate : List.of("/usr/bin/python3", "python3")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import setuptools.build_meta, wheel")
                        .redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
            } catch (IOException e) {
                // not there
            }
        }
        throw new IllegalStateException("no python3 with setuptools and wheel; install python3-setuptools and"
                + " python3-wheel (.ci/run does)");
    }

    private static void run(Path dir, String... cmd) throws Exception {
        List<String> c = new ArrayList<>(List.of(cmd));
        Process p = new ProcessBuilder(c).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", c) + " failed:\n" + out);
        }
    }
}

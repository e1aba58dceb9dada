package io.tapline.plugin.install;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts setuptools and wheel into a new plugin environment without an index, so that pip can build
 * a source tree or sdist with {@code --no-build-isolation} (build isolation {@code off}, or
 * {@code auto} after an isolated build could not get its requirements: see
 * {@code tapline.plugins.build-isolation}).
 *
 * <p>Where they come from, never an index: the wheelhouses ({@code tapline.plugins.find-links}),
 * and the site-packages of the interpreter the environment was made from (the plugin's
 * {@code python}, else {@code tapline.plugins.python}: on Debian and Ubuntu, python3-setuptools and
 * python3-wheel). An installed distribution is not something pip can install from, so
 * {@link #PACK} (run by that interpreter) packs each of them that is installed there, pure Python
 * only, into a {@code py3-none-any} wheel in a scratch directory that is given to pip as one more
 * {@code --find-links}; only that interpreter's own distributions are used, as a distribution
 * patched for one interpreter (Debian's setuptools expects Debian's Python) may not work with
 * another. pip takes the highest version found in the wheelhouses and the scratch directory, and
 * keeps what the environment already has ({@code python -m venv} of Python 3.11 and older brings
 * setuptools, never wheel). setuptools is required; wheel is installed when found (setuptools
 * before 70.1 cannot build a wheel without it, later ones can).
 */
final class BuildRequirements {

    /** The scratch directory of the packed wheels, in the plugin's directory; removed after the install. */
    static final String SCRATCH = ".build-wheels";

    /**
     * Packs installed distributions into wheels. Arguments: the output directory, then the
     * distribution names. Prints one line per name: what was packed from where, or why not.
     * Files come from the distribution's RECORD (or installed-files.txt); a Debian-style egg-info
     * without a file list gives its {@code top_level.txt} names (those another installed
     * distribution also claims are left out) and, for setuptools, {@code distutils-precedence.pth}.
     */
    static final String PACK = """
            import base64, hashlib, os, re, sys, zipfile
            from importlib import metadata

            out = sys.argv[1]
            claimed = {}
            if hasattr(metadata, "packages_distributions"):
                for top, names in metadata.packages_distributions().items():
                    claimed[top] = {n.lower() for n in names}
            for name in sys.argv[2:]:
                try:
                    dist = metadata.distribution(name)
                except metadata.PackageNotFoundError:
                    print("%s is not installed for %s" % (name, sys.executable))
                    continue
                real = dist.metadata["Name"]
                base = os.path.realpath(str(dist.locate_file("")))
                files = []
                if dist.files:
                    for f in dist.files:
                        rel = str(f).replace(os.sep, "/")
                        if not rel.startswith("../") and "__pycache__" not in rel and ".dist-info/" not in rel \\
                                and ".egg-info/" not in rel:
                            files.append(rel)
                else:
                    for top in (dist.read_text("top_level.txt") or "").split():
                        if claimed.get(top, set()) - {name.lower(), real.lower()}:
                            continue
                        if os.path.isdir(os.path.join(base, top)):
                            for root, dirs, leaves in os.walk(os.path.join(base, top)):
                                dirs[:] = [d for d in dirs if d != "__pycache__"]
                                files += [os.path.relpath(os.path.join(root, n), base).replace(os.sep, "/")
                                          for n in leaves]
                        elif os.path.isfile(os.path.join(base, top + ".py")):
                            files.append(top + ".py")
                    if real.lower() == "setuptools" and os.path.isfile(os.path.join(base, "distutils-precedence.pth")):
                        files.append("distutils-precedence.pth")
                files = sorted(f for f in set(files) if not f.endswith(".pyc") and os.path.isfile(os.path.join(base, f)))
                if not files or any(f.endswith((".so", ".pyd", ".dylib")) for f in files):
                    print("%s %s in %s is not packed (no files, or not pure Python)" % (real, dist.version, base))
                    continue
                norm = re.sub(r"[-_.]+", "_", real).lower()
                info = "%s-%s.dist-info" % (norm, dist.version)
                wheel = os.path.join(out, "%s-%s-py3-none-any.whl" % (norm, dist.version))
                entries = [(f, open(os.path.join(base, f), "rb").read()) for f in files]
                entries.append((info + "/METADATA", (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").encode()))
                entries.append((info + "/WHEEL", b"Wheel-Version: 1.0\\nGenerator: tapline\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"))
                for extra in ("entry_points.txt", "top_level.txt"):
                    text = dist.read_text(extra)
                    if text:
                        entries.append((info + "/" + extra, text.encode()))
                record = []
                with zipfile.ZipFile(wheel + ".part", "w", zipfile.ZIP_DEFLATED) as z:
                    for path, data in entries:
                        z.writestr(path, data)
                        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
                    record.append(info + "/RECORD,,")
                    z.writestr(info + "/RECORD", "\\n".join(record) + "\\n")
                os.replace(wheel + ".part", wheel)
                print("packed %s %s from %s" % (real, dist.version, base))
            """;

    private BuildRequirements() {
    }

    /** {@code --find-links=<x>} for each wheelhouse, in order. */
    static List<String> findLinks(List<String> wheelhouses) {
        return wheelhouses.stream().map(String::strip).filter(s -> !s.isEmpty()).map(s -> "--find-links=" + s).toList();
    }

    /**
     * Installs setuptools (required) and wheel (when found) into the environment {@code install} installs into.
     *
     * @param install the installer command before its requirements ({@code <venv python> -m pip install ...}
     *     or {@code uv pip install --python ...}), without pip-args: the seeding never asks an index
     * @param python the interpreter the environment was made from (its site-packages are packed)
     * @param wheelhouses {@code tapline.plugins.find-links}
     * @param scratch an empty directory the install user may write (the packed wheels go there)
     * @throws EnvironmentBuilder.InstallFailure when setuptools is in neither place (or a stop, a timeout)
     */
    static void seed(InstallCommand cmd, List<String> install, String python, List<String> wheelhouses, Path scratch)
            throws EnvironmentBuilder.InstallFailure {
        cmd.say("building without build isolation: installing setuptools and wheel into the environment from the"
                + " wheelhouses (tapline.plugins.find-links) and " + python + "'s own site-packages, without an index");
        try {
            cmd.run(List.of(python, "-c", PACK, scratch.toString(), "setuptools", "wheel"),
                    python + " -c <pack installed setuptools and wheel as wheels> " + scratch + " setuptools wheel",
                    "packing " + python + "'s setuptools and wheel");
        } catch (EnvironmentBuilder.InstallFailure e) {
            cmd.checkStop();
            cmd.say("not using " + python + "'s site-packages: " + e.getMessage());
        }
        List<String> base = new ArrayList<>(install);
        base.add("--no-index");
        base.addAll(findLinks(wheelhouses));
        base.add("--find-links=" + scratch);
        try {
            cmd.run(with(base, "setuptools"), "installing setuptools");
        } catch (EnvironmentBuilder.InstallFailure e) {
            cmd.checkStop();
            throw new EnvironmentBuilder.InstallFailure("building without build isolation needs setuptools in the"
                    + " plugin's environment, and neither the wheelhouses (tapline.plugins.find-links"
                    + (wheelhouses.isEmpty() ? ": none set" : ": " + String.join(", ", wheelhouses)) + ") nor " + python
                    + " (on Debian and Ubuntu: python3-setuptools) has it: " + e.getMessage());
        }
        try {
            cmd.run(with(base, "wheel"), "installing wheel");
        } catch (EnvironmentBuilder.InstallFailure e) {
            cmd.checkStop();
            cmd.say("wheel is in neither the wheelhouses nor " + python + "'s site-packages; setuptools before 70.1"
                    + " cannot build a wheel without it (on Debian and Ubuntu: python3-wheel)");
        }
    }

    private static List<String> with(List<String> base, String requirement) {
        List<String> c = new ArrayList<>(base);
        c.add(requirement);
        return c;
    }
}

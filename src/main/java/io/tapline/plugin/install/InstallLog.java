package io.tapline.plugin.install;

/** The newest {@code max} characters of an install's output, one line per line. Thread-safe. */
final class InstallLog {

    private final int max;
    private final StringBuilder text = new StringBuilder();

    InstallLog(int max) {
        this.max = Math.max(1024, max);
    }

    synchronized void add(String line) {
        text.append(line).append('\n');
        if (text.length() > max) {
            int cut = text.indexOf("\n", text.length() - max);
            text.delete(0, cut < 0 ? text.length() - max : cut + 1);
        }
    }

    synchronized String text() {
        return text.toString();
    }
}

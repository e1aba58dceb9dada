package io.tapline.cli.http;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Stops a JDK HTTP client's selector thread before the JVM exits, so that the exit does not wait
 * for it. The thread ({@code HttpClient-<id>-SelectorManager}, a daemon) waits for I/O in native
 * code ({@code epoll_wait}, up to 3 s at a time); HotSpot's exit waits for every thread in native
 * code to block, 10 ms at a time, for up to about 300 ms
 * ({@code VM_Exit::wait_for_threads_in_native_to_block}; JDK 22 names the count
 * {@code -XX:UserThreadWaitAttemptsAtExit}, 30 by default). Whether the thread was back in
 * {@code epoll_wait} when {@code System.exit} came was a race: a short command took either its
 * own time or 300 ms more (bench/README.md §8, measured with {@code strace}).
 *
 * <p>JDK 21 and later: {@code HttpClient.shutdownNow()} and {@code awaitTermination} (public API,
 * looked up by name, the CLI being compiled for 17). Before: the JDK has no way to stop a client,
 * but its selector thread leaves its loop when interrupted (the loop tests
 * {@code Thread.isInterrupted()} each turn, and an interrupt wakes a blocked
 * {@code Selector.select}), then closes its selector; the thread is found by its name, whose id is
 * the one the client's {@code toString()} ends with ({@code ...HttpClientImpl@1a2b(1)}). Either
 * way it waits at most {@value #WAIT_MS} ms for the thread to end; should a JDK name its thread
 * otherwise, nothing is stopped and the exit is only slower.
 */
final class SelectorStop {

    private static final long WAIT_MS = 200;

    private SelectorStop() {
    }

    /** Stops {@code client}'s selector thread and waits (briefly) for it to end; never throws. */
    static void stop(HttpClient client) {
        if (!shutdownNow(client)) {
            Thread t = selectorThread(client);
            if (t != null) {
                t.interrupt();
                try {
                    t.join(WAIT_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The JDK 21+ way; false when this JDK has no {@code shutdownNow}. */
    private static boolean shutdownNow(HttpClient client) {
        Method shutdownNow;
        Method await;
        try {
            shutdownNow = HttpClient.class.getMethod("shutdownNow");
            await = HttpClient.class.getMethod("awaitTermination", Duration.class);
        } catch (NoSuchMethodException e) {
            return false;
        }
        try {
            shutdownNow.invoke(client);
            await.invoke(client, Duration.ofMillis(WAIT_MS));
        } catch (IllegalAccessException | InvocationTargetException e) {
            // already stopped, or interrupted: nothing more to do at exit
        }
        return true;
    }

    /** The live selector thread of {@code client} (JDK 17-20), or null. */
    static Thread selectorThread(HttpClient client) {
        String s = client.toString();
        int open = s.lastIndexOf('(');
        if (open < 0 || !s.endsWith(")")) {
            return null;
        }
        String name = "HttpClient-" + s.substring(open + 1, s.length() - 1) + "-SelectorManager";
        ThreadGroup group = Thread.currentThread().getThreadGroup();
        while (group.getParent() != null) {
            group = group.getParent();
        }
        Thread[] threads = new Thread[group.activeCount() + 8];
        int n = group.enumerate(threads, true);
        for (int i = 0; i < n; i++) {
            if (threads[i].getName().equals(name)) {
                return threads[i];
            }
        }
        return null;
    }
}

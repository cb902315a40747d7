package io.volrep.spi;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a started {@link ReplicationServer} until SIGTERM or SIGINT, drains it, and returns 0: what a plugin's
 * {@code main} (and {@code volrep serve-reference} / {@code volrep serve-exec}) runs.
 *
 * <pre>{@code
 * ReplicationServer server = ReplicationServer.builder().driver(new MyDriver())
 *         .listen("unix:///csi/csi-addons.sock").build().start();
 * System.exit(ServeUntilSignal.run(server, server::close, new PrintWriter(System.out, true)));
 * }</pre>
 *
 * <p>Why signal handlers rather than only a shutdown hook: a JVM stopped by a signal through its shutdown
 * hooks exits with 128 + the signal (143 for SIGTERM, 130 for SIGINT) even after a clean drain, which process
 * supervisors read as a failure. Handlers for TERM and INT ({@code sun.misc.Signal}, module jdk.unsupported)
 * stop the server instead; the thread blocked here then returns 0 once {@code stop} has completed. A shutdown
 * hook stays as the fallback for any other way the JVM goes down (SIGHUP, {@code System.exit}, or a JVM where
 * the handlers cannot be installed, e.g. {@code -Xrs}).
 */
public final class ServeUntilSignal {
    private static final Logger LOG = LoggerFactory.getLogger(ServeUntilSignal.class);
    private static final List<String> SIGNALS = List.of("TERM", "INT");

    private ServeUntilSignal() {}

    /**
     * Prints {@code listening on <address>} to {@code out}, then blocks until the server terminates: on SIGTERM
     * or SIGINT {@code stop} runs once (it must close {@code server}, e.g. {@code server::close}, and may release
     * more, such as driver processes, afterwards).
     *
     * @param server a started server
     * @param stop   closes the server (gracefully) and whatever else must go with it; run at most once
     * @param out    where the ready line goes
     * @return 0 after a clean stop
     * @throws InterruptedException when the calling thread is interrupted while serving
     */
    public static int run(ReplicationServer server, Runnable stop, PrintWriter out) throws InterruptedException {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(stop, "stop");
        Objects.requireNonNull(out, "out");
        StopOnce stopOnce = new StopOnce(stop);
        Thread hook = new Thread(stopOnce, "volrep-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        List<Object[]> previous = installHandlers(stopOnce);
        try {
            out.println("listening on " + server.address());
            out.flush();
            server.awaitTermination();
            stopOnce.run(); // waits for a stop in progress, or completes one the server did not go through
            return 0;
        } finally {
            restoreHandlers(previous);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook runs (or ran) the same idempotent stop
            }
        }
    }

    /** Runs {@code stop} once; later callers wait until it has completed. */
    private static final class StopOnce implements Runnable {
        private final Runnable stop;
        private final AtomicBoolean started = new AtomicBoolean();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        StopOnce(Runnable stop) {
            this.stop = stop;
        }

        @Override
        public void run() {
            if (!started.compareAndSet(false, true)) {
                done.join();
                return;
            }
            try {
                stop.run();
            } finally {
                done.complete(null);
            }
        }
    }

    /** Installs TERM and INT handlers that stop; returns {signal, previous handler} pairs to restore. */
    private static List<Object[]> installHandlers(Runnable stop) {
        List<Object[]> previous = new ArrayList<>();
        for (String name : SIGNALS) {
            try {
                Object signal = SunSignal.signal(name);
                Object old = SunSignal.handle(signal, SunSignal.handler(() -> {
                    LOG.debug("SIG{} received: stopping", name);
                    // The handler runs on its own thread; the drain may take the grace period, so stop there
                    // rather than on the thread blocked in run().
                    stop.run();
                }));
                previous.add(new Object[] {signal, old});
            } catch (IllegalArgumentException | LinkageError | ReflectiveOperationException e) {
                // e.g. -Xrs, or the signal is reserved: the shutdown hook still drains (the exit status is then 128+n)
                LOG.debug("cannot handle SIG{} ({}); the shutdown hook will stop the server", name, e.toString());
            }
        }
        return previous;
    }

    private static void restoreHandlers(List<Object[]> previous) {
        for (Object[] p : previous) {
            try {
                SunSignal.handle(p[0], p[1]);
            } catch (IllegalArgumentException | ReflectiveOperationException e) {
                LOG.debug("cannot restore the handler of {}", p[0]);
            }
        }
    }

    /**
     * {@code sun.misc.Signal} and {@code SignalHandler} (module jdk.unsupported, exported for this very use), reached
     * reflectively: javac warns about every direct reference to them, and the build fails on warnings.
     */
    private static final class SunSignal {
        private static final String SIGNAL = "sun.misc.Signal";
        private static final String HANDLER = "sun.misc.SignalHandler";

        static Object signal(String name) throws ReflectiveOperationException {
            try {
                return Class.forName(SIGNAL).getConstructor(String.class).newInstance(name);
            } catch (InvocationTargetException e) {
                throw unwrapped(e);
            }
        }

        /** A {@code SignalHandler} that runs {@code onSignal}. */
        static Object handler(Runnable onSignal) throws ClassNotFoundException {
            Class<?> handler = Class.forName(HANDLER);
            return Proxy.newProxyInstance(
                    handler.getClassLoader(),
                    new Class<?>[] {handler},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            onSignal.run();
                            yield null;
                        }
                        case "equals" -> proxy == args[0];
                        case "hashCode" -> System.identityHashCode(proxy);
                        default -> "SignalHandler[volrep]";
                    });
        }

        /** {@code Signal.handle(signal, handler)}: installs {@code handler}, returns the one it replaces. */
        static Object handle(Object signal, Object handler) throws ReflectiveOperationException {
            try {
                return Class.forName(SIGNAL)
                        .getMethod("handle", Class.forName(SIGNAL), Class.forName(HANDLER))
                        .invoke(null, signal, handler);
            } catch (InvocationTargetException e) {
                throw unwrapped(e);
            }
        }

        private static RuntimeException unwrapped(InvocationTargetException e) throws ReflectiveOperationException {
            if (e.getCause() instanceof RuntimeException r) {
                throw r; // IllegalArgumentException: the signal is unknown or reserved (-Xrs)
            }
            throw e;
        }
    }
}

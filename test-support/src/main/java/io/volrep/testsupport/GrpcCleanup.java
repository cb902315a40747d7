package io.volrep.testsupport;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Releases what a test started (gRPC servers and channels, child processes, anything {@link AutoCloseable}) and
 * fails the test when something does not go away: a JUnit 5 counterpart of grpc-testing's {@code GrpcCleanupRule}.
 *
 * <pre>{@code
 * @RegisterExtension
 * final GrpcCleanup grpc = new GrpcCleanup();
 *
 * @Test
 * void answers() throws Exception {
 *     String name = InProcessServerBuilder.generateName();
 *     grpc.register(InProcessServerBuilder.forName(name).addService(service).build().start());
 *     ManagedChannel channel = grpc.register(InProcessChannelBuilder.forName(name).build());
 *     ...
 * }
 * }</pre>
 *
 * <p>After each test the resources it registered are released in reverse order of registration, each gracefully
 * first ({@code shutdown()} and {@code awaitTermination}, {@code destroy()} of a process and its descendants, or
 * {@code close()}) with a bounded wait, then forcibly ({@code shutdownNow()}, {@code destroyForcibly()}, an interrupt
 * of {@code close()}) if it has not terminated. A resource that needed forcing, or that survived it, or whose
 * {@code close()} threw, fails the test with a message naming it. When the test has already failed, everything is
 * forced at once and only what survives that is reported (as a suppressed exception of the test's failure).
 *
 * <p>Registered through a {@code static} field, resources registered outside a test (in {@code @BeforeAll}) are
 * released after all tests of the class; those registered from a test's {@code @BeforeEach} on, after that test.
 * Registration is thread-safe; an object registered twice is released once.
 */
public final class GrpcCleanup implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    /** How long each resource gets to terminate after its graceful shutdown, unless given otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** How long a forced resource gets to terminate before it is reported as still running. */
    static final Duration FORCED_TIMEOUT = Duration.ofSeconds(5);

    private final Duration timeout;
    private final List<Resource> classResources = new ArrayList<>();
    private final List<Resource> testResources = new ArrayList<>();
    /** Registered through a static field: resources registered outside a test live until afterAll. */
    private boolean classLevel;

    private boolean inTest;

    /** Waits up to {@link #DEFAULT_TIMEOUT} for each resource's graceful shutdown. */
    public GrpcCleanup() {
        this(DEFAULT_TIMEOUT);
    }

    /** Waits up to {@code timeout} for each resource's graceful shutdown before forcing it (and failing). */
    public GrpcCleanup(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    /** Shuts {@code server} down after the test; returns it. */
    public <T extends Server> T register(T server) {
        add(GrpcResource.of(Objects.requireNonNull(server, "server")));
        return server;
    }

    /** Shuts {@code channel} down after the test; returns it. */
    public <T extends ManagedChannel> T register(T channel) {
        add(GrpcResource.of(Objects.requireNonNull(channel, "channel")));
        return channel;
    }

    /** Destroys {@code process} and its descendants after the test; returns it. */
    public <T extends Process> T register(T process) {
        add(new ProcessResource(Objects.requireNonNull(process, "process")));
        return process;
    }

    /** Closes {@code closeable} after the test (on a helper thread, so that the wait stays bounded); returns it. */
    public <T extends AutoCloseable> T register(T closeable) {
        add(new CloseableResource(Objects.requireNonNull(closeable, "closeable")));
        return closeable;
    }

    private synchronized void add(Resource resource) {
        for (List<Resource> list : List.of(classResources, testResources)) {
            if (list.stream().anyMatch(r -> r.target() == resource.target())) {
                return;
            }
        }
        (classLevel && !inTest ? classResources : testResources).add(resource);
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        classLevel = true;
    }

    @Override
    public synchronized void beforeEach(ExtensionContext context) {
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<Resource> resources;
        synchronized (this) {
            inTest = false;
            resources = new ArrayList<>(testResources);
            testResources.clear();
        }
        release(resources, timeout, context.getExecutionException().isPresent()).ifPresent(e -> {
            throw e;
        });
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<Resource> resources;
        synchronized (this) {
            resources = new ArrayList<>(classResources);
            resources.addAll(testResources);
            classResources.clear();
            testResources.clear();
        }
        release(resources, timeout, context.getExecutionException().isPresent()).ifPresent(e -> {
            throw e;
        });
    }

    /**
     * Releases {@code resources} (in registration order) last to first; the failure to report, if any. When
     * {@code alreadyFailed}, skips the graceful shutdown and reports only what survives forcing.
     */
    static Optional<AssertionError> release(List<Resource> resources, Duration timeout, boolean alreadyFailed) {
        List<Resource> reversed = new ArrayList<>(resources);
        Collections.reverse(reversed);
        List<Resource> forced = new ArrayList<>();
        List<String> leaks = new ArrayList<>();
        List<Throwable> causes = new ArrayList<>();
        boolean interrupted = false;
        for (Resource r : reversed) {
            if (alreadyFailed || interrupted) {
                forced.add(r);
                continue;
            }
            try {
                r.shutdown();
                if (!r.awaitTermination(timeout)) {
                    forced.add(r);
                }
            } catch (InterruptedException e) {
                interrupted = true;
                causes.add(e);
                forced.add(r);
            } catch (Exception | AssertionError e) {
                leaks.add(r + ": " + r.graceful() + " threw " + e);
                causes.add(e);
                forced.add(r);
            }
        }
        for (Resource r : forced) {
            r.shutdownNow();
        }
        for (Resource r : forced) {
            boolean ended;
            try {
                ended = !interrupted && r.awaitTermination(FORCED_TIMEOUT);
            } catch (InterruptedException e) {
                interrupted = true;
                ended = false;
            }
            if (!ended) {
                leaks.add(r + ": still running "
                        + (interrupted ? "(interrupted while waiting) " : FORCED_TIMEOUT.toMillis() + " ms ") + "after "
                        + r.forced());
            } else if (!alreadyFailed) {
                leaks.add(r + ": not terminated " + timeout.toMillis() + " ms after " + r.graceful() + "; " + r.forced()
                        + " ended it");
            }
        }
        for (Resource r : reversed) {
            // A close() that answers the forcing interrupt with an InterruptedException did what was asked.
            r.failure()
                    .filter(f -> !(forced.contains(r) && f instanceof InterruptedException))
                    .ifPresent(f -> {
                        leaks.add(r + ": " + r.graceful() + " threw " + f);
                        causes.add(f);
                    });
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (leaks.isEmpty()) {
            return Optional.empty();
        }
        AssertionError error = new AssertionError("GrpcCleanup: " + leaks.size() + " resource(s) not released cleanly:"
                + System.lineSeparator() + "  - " + String.join(System.lineSeparator() + "  - ", leaks));
        causes.forEach(error::addSuppressed);
        return Optional.of(error);
    }

    /** Something registered, shut down gracefully, then forcibly. */
    abstract static class Resource {
        private final Object target;
        private final String name;
        private final String graceful;
        private final String forced;

        /**
         * @param target   what was registered
         * @param name     how messages name it
         * @param graceful what the graceful shutdown is called, for messages
         * @param forced   what the forced shutdown is called, for messages
         */
        Resource(Object target, String name, String graceful, String forced) {
            this.target = target;
            this.name = name;
            this.graceful = graceful;
            this.forced = forced;
        }

        /** What was registered (two registrations of the same object are one resource). */
        final Object target() {
            return target;
        }

        @Override
        public final String toString() {
            return name;
        }

        /** Starts the graceful shutdown. */
        abstract void shutdown() throws Exception;

        /** True when terminated within {@code timeout}. */
        abstract boolean awaitTermination(Duration timeout) throws InterruptedException;

        /** Forces the shutdown; never throws. */
        abstract void shutdownNow();

        /** What the graceful shutdown is called, for messages. */
        final String graceful() {
            return graceful;
        }

        /** What the forced shutdown is called, for messages. */
        final String forced() {
            return forced;
        }

        /** What the graceful shutdown threw on another thread (the close of an {@link AutoCloseable}). */
        Optional<Throwable> failure() {
            return Optional.empty();
        }
    }

    /**
     * A gRPC server or channel. Both shut down with {@code shutdown()}, {@code awaitTermination} and
     * {@code shutdownNow()}, but grpc-java gives them no common type: the three are passed in.
     */
    private static final class GrpcResource extends Resource {
        /** {@code awaitTermination(long, TimeUnit)} of a server or channel. */
        private interface Termination {
            boolean await(long timeout, TimeUnit unit) throws InterruptedException;
        }

        private final Runnable shutdown;
        private final Termination termination;
        private final Runnable shutdownNow;

        private GrpcResource(
                Object target, String name, Runnable shutdown, Termination termination, Runnable shutdownNow) {
            super(target, name, "shutdown()", "shutdownNow()");
            this.shutdown = shutdown;
            this.termination = termination;
            this.shutdownNow = shutdownNow;
        }

        static GrpcResource of(Server server) {
            return new GrpcResource(
                    server, "server " + server, server::shutdown, server::awaitTermination, server::shutdownNow);
        }

        static GrpcResource of(ManagedChannel channel) {
            return new GrpcResource(
                    channel, "channel " + channel, channel::shutdown, channel::awaitTermination, channel::shutdownNow);
        }

        @Override
        void shutdown() {
            shutdown.run();
        }

        @Override
        boolean awaitTermination(Duration timeout) throws InterruptedException {
            return termination.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        void shutdownNow() {
            shutdownNow.run();
        }
    }

    /** A child process and the descendants it had when shut down (a child JVM's own children, a shell's command). */
    private static final class ProcessResource extends Resource {
        private final Process process;
        private final List<ProcessHandle> descendants = new ArrayList<>();

        ProcessResource(Process process) {
            // The command is known only while the process lives: take it now.
            super(
                    process,
                    "process " + process.pid()
                            + process.info().command().map(c -> " (" + c + ")").orElse(""),
                    "destroy()",
                    "destroyForcibly()");
            this.process = process;
        }

        @Override
        void shutdown() {
            rememberDescendants();
            descendants.forEach(ProcessHandle::destroy);
            process.destroy();
        }

        @Override
        boolean awaitTermination(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
            for (ProcessHandle h : descendants) {
                try {
                    h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    return false;
                } catch (ExecutionException e) {
                    // onExit never completes exceptionally; treat it as gone.
                }
            }
            return true;
        }

        @Override
        void shutdownNow() {
            rememberDescendants();
            descendants.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }

        /** Descendants are found through the parent: once it is gone they are orphans no one would kill. */
        private void rememberDescendants() {
            process.descendants().filter(h -> !descendants.contains(h)).forEach(descendants::add);
        }
    }

    /** {@code close()} runs on a daemon thread: a close that hangs stays within the bound, and can be interrupted. */
    private static final class CloseableResource extends Resource {
        private final AutoCloseable closeable;
        private Thread closer;
        private volatile Throwable failure;

        CloseableResource(AutoCloseable closeable) {
            super(closeable, nameOf(closeable), "close()", "an interrupt of close()");
            this.closeable = closeable;
        }

        /** Its {@code toString()}, led by its class name unless it already starts with it. */
        private static String nameOf(AutoCloseable closeable) {
            String named = String.valueOf(closeable);
            return named.startsWith(closeable.getClass().getName())
                    ? named
                    : closeable.getClass().getName() + " " + named;
        }

        @Override
        void shutdown() {
            closer = new Thread(
                    () -> {
                        try {
                            closeable.close();
                        } catch (Throwable t) {
                            failure = t;
                        }
                    },
                    "GrpcCleanup close " + closeable.getClass().getSimpleName());
            closer.setDaemon(true);
            closer.start();
        }

        @Override
        boolean awaitTermination(Duration timeout) throws InterruptedException {
            TimeUnit.NANOSECONDS.timedJoin(closer, timeout.toNanos());
            return !closer.isAlive();
        }

        @Override
        void shutdownNow() {
            if (closer == null) {
                shutdown();
            }
            closer.interrupt();
        }

        @Override
        Optional<Throwable> failure() {
            return Optional.ofNullable(failure);
        }
    }
}

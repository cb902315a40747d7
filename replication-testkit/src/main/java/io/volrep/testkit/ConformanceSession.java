package io.volrep.testkit;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.ReplicationServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * One run's connections to the target (and its peer site) and the scheduler that runs its checks, each holding its
 * fixtures, several at a time: starts in-process targets, opens the channels, runs checks and the lifecycle
 * exploration, and keeps what the report needs (calls, waits).
 */
final class ConformanceSession implements AutoCloseable {
    private final ConformanceConfig config;
    private final Endpoints.OpenChannel open;
    /** The healer's own channel when {@link ConformanceConfig#healerEndpoint()} is set; else null. */
    private final Endpoints.OpenChannel openHealer;
    /** The peer site's channel when a peer is configured; else null. */
    private final Endpoints.OpenChannel openPeer;

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Every call the run sent to the target. */
    private final java.util.concurrent.atomic.LongAdder calls = new java.util.concurrent.atomic.LongAdder();
    /** Each source's replica on the peer site, as the target's destination named it. */
    private final PeerReplicas peerReplicas = new PeerReplicas();
    /** How long each check (by name) ran, and polled transient answers. */
    private final CheckTimes times = new CheckTimes();
    /** The checks submitted so far (by name) and their runs. */
    private final Map<String, CompletableFuture<Throwable>> submitted = new ConcurrentHashMap<>();

    private final CheckScheduler scheduler;
    private volatile Exploration exploration;

    private ConformanceSession(ConformanceConfig config) {
        this.config = config;
        String endpoint;
        String peer = config.peerEndpoint().orElse(null);
        if (config.endpoint().isPresent()) {
            endpoint = config.endpoint().get();
        } else if (config.driver().isPresent()) {
            endpoint = serve(config.driver().get(), true);
            if (config.peerDriver().isPresent()) {
                peer = serve(config.peerDriver().get(), false);
            }
        } else {
            String name = "volrep-conformance-" + InProcessServerBuilder.generateName();
            // ServerInterceptors.intercept calls the last one first; the config's first is outermost.
            List<ServerInterceptor> outermostLast = new ArrayList<>(config.interceptors());
            java.util.Collections.reverse(outermostLast);
            try {
                Server server = InProcessServerBuilder.forName(name)
                        .addService(
                                ServerInterceptors.intercept(config.service().get(), outermostLast))
                        .build()
                        .start();
                resources.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            endpoint = "inprocess:" + name;
        }
        this.open = Endpoints.open(endpoint);
        this.openHealer = config.healerEndpoint().map(Endpoints::open).orElse(null);
        this.openPeer = peer == null ? null : Endpoints.open(peer);
        this.scheduler = new CheckScheduler(config);
    }

    /** Serves {@code driver} in-process through the SPI runtime (with the healer and interceptors for the target). */
    private String serve(io.volrep.spi.ReplicationDriver driver, boolean target) {
        String name = "volrep-conformance-" + InProcessServerBuilder.generateName();
        ReplicationServer.Builder builder = ReplicationServer.builder()
                .driver(driver)
                .dialect(config.dialect())
                .listen("inprocess:" + name)
                .gracePeriod(java.time.Duration.ofMillis(200));
        if (target) {
            config.healerDriver().ifPresent(builder::healer);
            config.volumeGroupDriver().ifPresent(builder::volumeGroups);
            // The SPI runs the last interceptor added first; the config's first is outermost.
            List<ServerInterceptor> outermostLast = new ArrayList<>(config.interceptors());
            java.util.Collections.reverse(outermostLast);
            outermostLast.forEach(builder::interceptor);
        }
        ReplicationServer server = builder.build().start();
        resources.add(server);
        return "inprocess:" + name;
    }

    static ConformanceSession open(ConformanceConfig config) {
        return new ConformanceSession(config);
    }

    ConformanceConfig config() {
        return config;
    }

    ManagedChannel channel() {
        return open.channel();
    }

    /**
     * Queues {@code checks} (once each): every check that makes calls runs on the scheduler with its fixtures; the
     * lifecycle exploration starts with the first check that reports on it.
     */
    void submit(List<Check> checks) {
        for (Check check : checks) {
            if (config.skipped(check) || submitted.containsKey(check.name())) {
                continue;
            }
            if (check.needs().reports()) {
                exploration().start();
                continue;
            }
            CompletableFuture<Throwable> result = new CompletableFuture<>();
            submitted.put(check.name(), result);
            scheduler.submit(check.needs(), weight(check), lease -> result.complete(runHere(check, lease)));
        }
    }

    /** About how many calls a check makes: the scheduler starts heavy ones first. */
    private static int weight(Check check) {
        return check.needs().every() ? 1 : 10;
    }

    /** Runs one check: on the scheduler's result when it was submitted, here otherwise; throws its failure. */
    void run(Check check) throws Throwable {
        if (!check.needs().reports()) {
            submit(List.of(check));
        }
        CompletableFuture<Throwable> result = submitted.get(check.name());
        Throwable failure = result == null ? runHere(check, CheckScheduler.Lease.NONE) : result.get();
        if (failure != null) {
            throw failure;
        }
    }

    /** Runs {@code check} in this thread holding {@code lease}, then restores what it enabled; returns its failure. */
    private Throwable runHere(Check check, CheckScheduler.Lease lease) {
        ConformanceContext ctx = new ConformanceContext(this, lease);
        long start = System.nanoTime();
        Throwable failure = null;
        try {
            check.body().run(ctx);
        } catch (Throwable t) {
            failure = t;
        }
        List<String> problems;
        try {
            problems = ctx.restore();
        } catch (Throwable t) {
            problems = List.of("could not restore: " + t);
        }
        // A check reporting the exploration only waits here for the tour: its time is its edges' (Exploration).
        times.ran(check.name(), check.needs().reports() ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - start));
        times.waited(check.name(), ctx.waited());
        if (!problems.isEmpty()) {
            AssertionFailedError restoreFailure = new AssertionFailedError(String.join("; ", problems));
            if (failure == null || failure instanceof TestAbortedException) {
                if (failure != null) {
                    restoreFailure.addSuppressed(failure);
                }
                failure = restoreFailure;
            } else {
                failure.addSuppressed(restoreFailure);
            }
        }
        if (failure == null) {
            return null;
        }
        Throwable safe = safe(failure, 0);
        if (safe instanceof AssertionError && !(safe instanceof TestAbortedException)) {
            // The id and hint travel with the failure, so every JUnit XML report (Surefire's too) carries them.
            AssertionFailedError named = new AssertionFailedError(
                    safe.getMessage()
                            + ConformanceListener.CHECK_LINE
                            + check.id()
                            + (check.hint().isEmpty() ? "" : ": " + check.hint()),
                    safe);
            named.setStackTrace(new StackTraceElement[0]);
            return named;
        }
        return safe;
    }

    /** Records that the check named {@code name} waited {@code d} for transient answers (the exploration's share). */
    void waited(String name, Duration d) {
        times.waited(name, d);
    }

    /** Records that the check named {@code name} ran {@code d} (the exploration's share: its edges' calls). */
    void ran(String name, Duration d) {
        times.ran(name, d);
    }

    /** {@code text} as the kit may write it anywhere: configured secret values masked, control characters escaped. */
    String safe(String text) {
        return text == null ? null : SafeText.escape(config.secrets().scrub(text));
    }

    /**
     * A copy of a check's failure whose messages (its own, its causes' and its suppressed exceptions') are
     * {@link #safe(String)}: they quote what the plugin answered, and whatever runs the suite (the kit's runner, a
     * vendor's Surefire) prints them and writes them into reports. Same kind (failed, aborted, error), same stack.
     */
    private Throwable safe(Throwable t, int depth) {
        String message = safe(t.getMessage());
        Throwable copy = t instanceof TestAbortedException
                ? new TestAbortedException(message)
                : t instanceof AssertionError
                        ? new AssertionFailedError(message)
                        : new IllegalStateException(t.getClass().getName() + (message == null ? "" : ": " + message));
        copy.setStackTrace(t.getStackTrace());
        if (depth < 8) {
            if (t.getCause() != null && t.getCause() != t) {
                copy.initCause(safe(t.getCause(), depth + 1));
            }
            for (Throwable suppressed : t.getSuppressed()) {
                copy.addSuppressed(safe(suppressed, depth + 1));
            }
        }
        return copy;
    }

    /** How long each check (by name) ran, and polled transient answers. */
    CheckTimes times() {
        return times;
    }

    /** What the lifecycle exploration covered, for the statement; empty when it did not run. */
    String explored() {
        Exploration e = exploration;
        return e == null ? "" : e.summary();
    }

    private volatile boolean pluginAnswered;

    /** True once the target answered anything but a transport failure: its 14 UNAVAILABLE is then transient. */
    boolean pluginAnswered() {
        return pluginAnswered;
    }

    void pluginAnswered(boolean answered) {
        if (answered && !pluginAnswered) {
            pluginAnswered = true;
        }
    }

    /** The run's lifecycle exploration, created on first use. */
    Exploration exploration() {
        Exploration e = exploration;
        if (e == null) {
            synchronized (this) {
                if (exploration == null) {
                    exploration = new Exploration(this);
                }
                e = exploration;
            }
        }
        return e;
    }

    /** Runs {@code work} on the scheduler holding {@code needs}. */
    CompletableFuture<Void> schedule(Needs needs, int weight, java.util.function.Consumer<CheckScheduler.Lease> work) {
        return scheduler.submit(needs, weight, work);
    }

    /** A context holding {@code lease}, for work that is not a check (the exploration). */
    ConformanceContext context(CheckScheduler.Lease lease) {
        return new ConformanceContext(this, lease);
    }

    java.util.concurrent.atomic.LongAdder callCounter() {
        return calls;
    }

    Channel healerChannel() {
        return openHealer == null ? open.channel() : openHealer.channel();
    }

    /** The peer site's channel, or null without a peer. */
    Channel peerChannel() {
        return openPeer == null ? null : openPeer.channel();
    }

    /** The fixtures' replicas on the peer site, found once per run. */
    PeerReplicas peerReplicas() {
        return peerReplicas;
    }

    /** How many calls the run has sent so far. */
    long calls() {
        return calls.sum();
    }

    @Override
    public void close() {
        scheduler.close();
        open.close();
        if (openPeer != null) {
            openPeer.close();
        }
        if (openHealer != null) {
            openHealer.close();
        }
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(ConformanceSession.class).warn("closing the conformance target", e);
            }
        }
    }
}

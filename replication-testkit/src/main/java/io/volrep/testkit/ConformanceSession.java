package io.volrep.testkit;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.ReplicationServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** One run's connection to the target: starts in-process targets, opens the channel, runs checks. */
final class ConformanceSession implements AutoCloseable {
    private final ConformanceConfig config;
    private final Endpoints.OpenChannel open;
    /** The healer's own channel when {@link ConformanceConfig#healerEndpoint()} is set; else null. */
    private final Endpoints.OpenChannel openHealer;
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Every call the run sent to the target. */
    private final java.util.concurrent.atomic.LongAdder calls = new java.util.concurrent.atomic.LongAdder();

    private ConformanceSession(ConformanceConfig config) {
        this.config = config;
        String endpoint;
        if (config.endpoint().isPresent()) {
            endpoint = config.endpoint().get();
        } else if (config.driver().isPresent()) {
            String name = "volrep-conformance-" + InProcessServerBuilder.generateName();
            ReplicationServer.Builder builder = ReplicationServer.builder().driver(config.driver().get())
                    .dialect(config.dialect()).listen("inprocess:" + name)
                    .gracePeriod(java.time.Duration.ofMillis(200));
            config.healerDriver().ifPresent(builder::healer);
            config.volumeGroupDriver().ifPresent(builder::volumeGroups);
            // The SPI runs the last interceptor added first; the config's first is outermost.
            List<ServerInterceptor> outermostLast = new ArrayList<>(config.interceptors());
            java.util.Collections.reverse(outermostLast);
            outermostLast.forEach(builder::interceptor);
            ReplicationServer server = builder.build().start();
            resources.add(server);
            endpoint = "inprocess:" + name;
        } else {
            String name = "volrep-conformance-" + InProcessServerBuilder.generateName();
            // ServerInterceptors.intercept calls the last one first; the config's first is outermost.
            List<ServerInterceptor> outermostLast = new ArrayList<>(config.interceptors());
            java.util.Collections.reverse(outermostLast);
            try {
                Server server = InProcessServerBuilder.forName(name)
                        .addService(ServerInterceptors.intercept(config.service().get(), outermostLast))
                        .build().start();
                resources.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            endpoint = "inprocess:" + name;
        }
        this.open = Endpoints.open(endpoint);
        this.openHealer = config.healerEndpoint().map(Endpoints::open).orElse(null);
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

    /** Runs one check, then restores what it enabled; a failed restore fails an otherwise passing check. */
    void run(Check check) throws Throwable {
        ConformanceContext ctx = new ConformanceContext(open.channel(),
                openHealer == null ? open.channel() : openHealer.channel(), config, calls);
        Throwable failure = null;
        try {
            check.body().run(ctx);
        } catch (Throwable t) {
            failure = t;
        }
        List<String> problems = ctx.restore();
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
            return;
        }
        Throwable safe = safe(failure, 0);
        if (safe instanceof AssertionError && !(safe instanceof TestAbortedException)) {
            // The id and hint travel with the failure, so every JUnit XML report (Surefire's too) carries them.
            AssertionFailedError named = new AssertionFailedError(safe.getMessage() + ConformanceListener.CHECK_LINE
                    + check.id() + (check.hint().isEmpty() ? "" : ": " + check.hint()), safe);
            named.setStackTrace(new StackTraceElement[0]);
            throw named;
        }
        throw safe;
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
        Throwable copy = t instanceof TestAbortedException ? new TestAbortedException(message)
                : t instanceof AssertionError ? new AssertionFailedError(message)
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

    /** How many calls the run has sent so far. */
    long calls() {
        return calls.sum();
    }

    @Override
    public void close() {
        open.close();
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

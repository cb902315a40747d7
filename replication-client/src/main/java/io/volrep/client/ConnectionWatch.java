package io.volrep.client;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.volrep.api.internal.SafeText;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While calls wait for a plugin that is down:
 * <ul>
 *   <li>asks the channel to reconnect every {@link #RECONNECT_INTERVAL} instead of after gRPC's own connection
 *       back-off (which grows to 2 minutes), so that a restarted plugin is used within about that interval;</li>
 *   <li>never waits silently: a WARN {@code Still connecting to <target> after N s: <why>} after
 *       {@link CallSettings.ConnectionWarnings#first()} and then every {@link CallSettings.ConnectionWarnings#every()}
 *       (the Go CSI sidecars' convention), the reason found by looking ({@link Reachability}); an INFO once the
 *       connection is back. The {@link ConnectionListener}, if any, hears the same at the same moments, so that a
 *       program without a logging binding learns it too.</li>
 * </ul>
 * Idle clients are left alone: it only acts while calls are active.
 */
final class ConnectionWatch {
    /** How often a client with waiting calls tries to reconnect to a plugin that is down. */
    static final Duration RECONNECT_INTERVAL = Duration.ofMillis(250);

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionWatch.class);
    private static final long NOT_WAITING = Long.MIN_VALUE;

    private final ManagedChannel channel;
    private final String target;
    private final ScheduledExecutorService scheduler;
    private final Executor executor;
    private final IntSupplier activeCalls;
    private final CallSettings.ConnectionWarnings warnings;
    /** Hears what the WARN and INFO lines say, or null. */
    private final ConnectionListener listener;

    private final AtomicBoolean watching = new AtomicBoolean();
    private final AtomicBoolean nudgeScheduled = new AtomicBoolean();
    /** {@link System#nanoTime()} when the current wait for a connection began; {@link #NOT_WAITING} when none. */
    private final AtomicLong waitingSince = new AtomicLong(NOT_WAITING);
    /** Whether the current wait was warned about (then its end is logged too). */
    private volatile boolean warned;

    ConnectionWatch(ManagedChannel channel, CallSettings settings, IntSupplier activeCalls) {
        this.channel = channel;
        this.target = settings.target();
        this.scheduler = settings.scheduler();
        this.executor = settings.executor();
        this.warnings = settings.warnings();
        this.listener = settings.connectionListener();
        this.activeCalls = activeCalls;
    }

    /**
     * Called by each attempt that waits for a connection: starts watching, nudges at once if the channel is down
     * already, and starts the clock of the warnings when there is no connection.
     */
    void watch() {
        ConnectivityState state = channel.getState(false);
        if (watching.compareAndSet(false, true)) {
            observe(state);
        } else if (state == ConnectivityState.TRANSIENT_FAILURE) {
            scheduleNudge();
        }
        if (state != ConnectivityState.READY && state != ConnectivityState.SHUTDOWN) {
            long now = System.nanoTime();
            if (waitingSince.compareAndSet(NOT_WAITING, now)) {
                scheduleWarning(now, warnings.first());
            }
        }
    }

    /** Why the target cannot be reached right now, found by looking (blocks for at most a TCP connect timeout). */
    Optional<String> whyUnreachable() {
        return Reachability.whyUnreachable(target);
    }

    private void observe(ConnectivityState seen) {
        if (seen == ConnectivityState.SHUTDOWN) {
            return;
        }
        if (seen == ConnectivityState.TRANSIENT_FAILURE) {
            scheduleNudge();
        } else if (seen == ConnectivityState.READY) {
            connected();
        }
        channel.notifyWhenStateChanged(seen, () -> observe(channel.getState(false)));
    }

    private void connected() {
        long since = waitingSince.getAndSet(NOT_WAITING);
        if (since != NOT_WAITING && warned) {
            warned = false;
            LOG.info("Connected to {} after {}", SafeText.escape(target), elapsed(since));
            if (listener != null) {
                tell(() -> listener.connected(target, Duration.ofNanos(System.nanoTime() - since)));
            }
        }
    }

    private void scheduleNudge() {
        if (activeCalls.getAsInt() == 0 || !nudgeScheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            scheduler.schedule(
                    () -> {
                        nudgeScheduled.set(false);
                        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                            channel.resetConnectBackoff();
                        }
                    },
                    RECONNECT_INTERVAL.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            nudgeScheduled.set(false);
        }
    }

    private void scheduleWarning(long since, Duration after) {
        try {
            scheduler.schedule(
                    () -> CallEngine.executeOrRun(executor, () -> warnIfStillWaiting(since)),
                    after.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            waitingSince.compareAndSet(since, NOT_WAITING);
        }
    }

    /** On the client's executor: looking at the target may block for a TCP connect. */
    private void warnIfStillWaiting(long since) {
        if (waitingSince.get() != since) {
            return; // connected meanwhile; a later wait has its own clock
        }
        ConnectivityState state = channel.getState(false);
        if (state == ConnectivityState.READY) {
            // Connected before the state callback said so: that wait's end is told here, or never.
            connected();
            return;
        }
        if (state == ConnectivityState.SHUTDOWN || activeCalls.getAsInt() == 0) {
            // Nobody waits any more (the calls ended at their deadlines): the next waiting call starts a new clock.
            waitingSince.compareAndSet(since, NOT_WAITING);
            return;
        }
        String why = whyUnreachable()
                .orElse("a connection can be opened now, but gRPC's channel is still " + state
                        + " (the plugin is just coming back, or TLS or the protocol does not match)");
        warned = true;
        LOG.warn(
                "Still connecting to {} after {}: {}; calls wait for it within their deadlines",
                SafeText.escape(target),
                elapsed(since),
                SafeText.escape(why));
        if (listener != null) {
            tell(() -> listener.stillConnecting(
                    target, Duration.ofNanos(System.nanoTime() - since), SafeText.escape(why)));
        }
        scheduleWarning(since, warnings.every());
    }

    /** Runs a {@link ConnectionListener} callback; what it throws is logged and ignored. */
    private static void tell(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("ConnectionListener threw {}; ignored", SafeText.escape(e.toString()));
        }
    }

    /** {@code 5 s}, or {@code 0.2 s} under 10 s. */
    private static String elapsed(long sinceNanos) {
        double s = (System.nanoTime() - sinceNanos) / 1e9;
        return s < 10 ? String.format(Locale.ROOT, "%.1f s", s) : Math.round(s) + " s";
    }
}

package io.volrep.client;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * While calls wait for a plugin that is down, asks the channel to reconnect every {@link #RECONNECT_INTERVAL}
 * instead of after gRPC's own connection back-off (which grows to 2 minutes), so that a restarted plugin is used
 * within about that interval. Idle clients are left alone: it only nudges while calls are active.
 */
final class ConnectionWatch {
    /** How often a client with waiting calls tries to reconnect to a plugin that is down. */
    static final Duration RECONNECT_INTERVAL = Duration.ofMillis(250);

    private final ManagedChannel channel;
    private final ScheduledExecutorService scheduler;
    private final IntSupplier activeCalls;
    private final AtomicBoolean watching = new AtomicBoolean();
    private final AtomicBoolean nudgeScheduled = new AtomicBoolean();

    ConnectionWatch(ManagedChannel channel, ScheduledExecutorService scheduler, IntSupplier activeCalls) {
        this.channel = channel;
        this.scheduler = scheduler;
        this.activeCalls = activeCalls;
    }

    /** Called by each waiting attempt: starts watching, or nudges at once if the channel is down already. */
    void watch() {
        if (watching.compareAndSet(false, true)) {
            observe(channel.getState(false));
        } else if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
            scheduleNudge();
        }
    }

    private void observe(ConnectivityState seen) {
        if (seen == ConnectivityState.SHUTDOWN) {
            return;
        }
        if (seen == ConnectivityState.TRANSIENT_FAILURE) {
            scheduleNudge();
        }
        channel.notifyWhenStateChanged(seen, () -> observe(channel.getState(false)));
    }

    private void scheduleNudge() {
        if (activeCalls.getAsInt() == 0 || !nudgeScheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            scheduler.schedule(() -> {
                nudgeScheduled.set(false);
                if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                    channel.resetConnectBackoff();
                }
            }, RECONNECT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            nudgeScheduled.set(false);
        }
    }
}

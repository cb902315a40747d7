package io.volrep.benchmarks;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A plugin whose every call takes {@code latency} (slept before the call reaches the delegate, as storage that
 * answers after a round trip) and that counts its calls: the lower bound of a run is its calls times the latency
 * divided by how many may run at once. The latency can change between phases (set-up at zero, then the point).
 */
final class LatencyDriver extends ForwardingReplicationDriver {
    private volatile Duration latency = Duration.ZERO;
    private final AtomicLong calls = new AtomicLong();

    LatencyDriver(ReplicationDriver delegate) {
        super(delegate);
    }

    void latency(Duration latency) {
        this.latency = latency;
    }

    /** The calls that reached the driver so far. */
    long calls() {
        return calls.get();
    }

    private void call() {
        calls.incrementAndGet();
        Duration l = latency;
        if (!l.isZero()) {
            try {
                Thread.sleep(l.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    @Override
    public void enable(EnableRequest request) {
        call();
        super.enable(request);
    }

    @Override
    public void disable(DisableRequest request) {
        call();
        super.disable(request);
    }

    @Override
    public void promote(PromoteRequest request) {
        call();
        super.promote(request);
    }

    @Override
    public void demote(DemoteRequest request) {
        call();
        super.demote(request);
    }

    @Override
    public ResyncResult resync(ResyncRequest request) {
        call();
        return super.resync(request);
    }

    @Override
    public ReplicationInfo info(InfoRequest request) {
        call();
        return super.info(request);
    }

    @Override
    public ReplicationDestination destination(DestinationRequest request) {
        call();
        return super.destination(request);
    }
}

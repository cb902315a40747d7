package io.volrep.spi;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link ReplicationDriver} that hands everything to another one, for decorators (auditing, fault injection,
 * a policy of your own): override what you change and call {@code super} for the rest. Everything the runtime reads
 * is forwarded, the declarations included ({@link #servedRpcs()}, {@link #supportedSourceKinds()}), so a wrapper
 * serves and advertises exactly what the driver it wraps does; a decorator that adds an RPC declares it too.
 *
 * <pre>{@code
 * ReplicationDriver audited = new ForwardingReplicationDriver(driver) {
 *     @Override
 *     public void promote(PromoteRequest r) {
 *         audit.record("promote " + r.source() + (r.force() ? " (forced)" : ""));
 *         super.promote(r);
 *     }
 * };
 * ReplicationServer.builder().driver(audited).listen("unix:///csi/csi-addons.sock").build().start();
 * }</pre>
 */
public abstract class ForwardingReplicationDriver implements ReplicationDriver {
    private final ReplicationDriver delegate;

    /** A driver that forwards to {@code delegate}. */
    protected ForwardingReplicationDriver(ReplicationDriver delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The driver this one forwards to. */
    protected final ReplicationDriver delegate() {
        return delegate;
    }

    @Override
    public void enable(EnableRequest request) {
        delegate.enable(request);
    }

    @Override
    public void disable(DisableRequest request) {
        delegate.disable(request);
    }

    @Override
    public void promote(PromoteRequest request) {
        delegate.promote(request);
    }

    @Override
    public void demote(DemoteRequest request) {
        delegate.demote(request);
    }

    @Override
    public ResyncResult resync(ResyncRequest request) {
        return delegate.resync(request);
    }

    @Override
    public ReplicationInfo info(InfoRequest request) {
        return delegate.info(request);
    }

    @Override
    public ReplicationDestination destination(DestinationRequest request) {
        return delegate.destination(request);
    }

    @Override
    public Set<Rpc> servedRpcs() {
        return delegate.servedRpcs();
    }

    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return delegate.supportedSourceKinds();
    }
}

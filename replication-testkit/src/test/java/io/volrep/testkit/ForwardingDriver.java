package io.volrep.testkit;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.util.Set;

/** A driver that hands every call to another: one-defect variants of a site of a reference pair override one call. */
class ForwardingDriver implements ReplicationDriver {
    final ReplicationDriver delegate;

    ForwardingDriver(ReplicationDriver delegate) {
        this.delegate = delegate;
    }

    @Override
    public void enable(EnableRequest r) {
        delegate.enable(r);
    }

    @Override
    public void disable(DisableRequest r) {
        delegate.disable(r);
    }

    @Override
    public void promote(PromoteRequest r) {
        delegate.promote(r);
    }

    @Override
    public void demote(DemoteRequest r) {
        delegate.demote(r);
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        return delegate.resync(r);
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        return delegate.info(r);
    }

    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        return delegate.destination(r);
    }

    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return delegate.supportedSourceKinds();
    }
}

package io.volrep.examples;

// snippet:start driver
import io.volrep.api.*;
import io.volrep.spi.*;

public final class AcmeDriver implements ReplicationDriver {
    private final AcmeArray array;                                   // your storage's API

    public AcmeDriver(AcmeArray array) { this.array = array; }

    private Mirror mirror(ReplicationSource source, Secrets secrets) {
        if (!array.login(secrets.get("user").orElse(""), secrets.get("password").orElse(""))) {
            throw new UnauthenticatedException("invalid credentials");    // 16 UNAUTHENTICATED
        }
        return array.find(source.id())                                   // volume or group id
                .orElseThrow(() -> new SourceNotFoundException(source + " does not exist"));   // 5 NOT_FOUND
    }

    @Override public void enable(EnableRequest r) {
        mirror(r.source(), r.secrets()).enable(r.parameters().getOrDefault("schedule", "5m"));  // idempotent
    }

    @Override public void disable(DisableRequest r) { mirror(r.source(), r.secrets()).disable(); }

    @Override public void promote(PromoteRequest r) {
        Mirror m = mirror(r.source(), r.secrets());
        if (!m.enabled()) throw new PreconditionFailedException("replication is not enabled");  // 9
        m.promote(r.force());
    }

    @Override public ReplicationInfo info(InfoRequest r) {
        Mirror m = mirror(r.source(), r.secrets());
        return ReplicationInfo.of(m.lastSync()).withLastSyncBytes(m.lastSyncBytes())
                .withStatus(m.lagging() ? ReplicationInfo.Status.DEGRADED : ReplicationInfo.Status.HEALTHY,
                        m.lagging() ? "peer " + m.peer() + " lags " + m.lag() : "");
    }

    @Override public ReplicationDestination destination(DestinationRequest r) {
        Mirror m = mirror(r.source(), r.secrets());
        if (!m.enabled()) throw new PreconditionFailedException("replication is not enabled");  // 9
        if (m.peerId() == null) throw new UnavailableException("destination not known yet");     // 14, transient
        return ReplicationDestination.volume(m.peerId());   // a group: volumeGroup(id, Map of member ids)
    }
}
// snippet:end driver

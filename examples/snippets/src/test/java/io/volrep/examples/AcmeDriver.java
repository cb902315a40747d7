package io.volrep.examples;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.UnavailableException;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

// snippet:start driver
public final class AcmeDriver implements ReplicationDriver {
    private final AcmeArray array; // your storage's API

    public AcmeDriver(AcmeArray array) {
        this.array = array;
    }

    private Mirror mirror(ReplicationSource source, Secrets secrets) {
        if (!array.login(secrets.get("user").orElse(""), secrets.get("password").orElse(""))) {
            throw new UnauthenticatedException("invalid credentials"); // 16 UNAUTHENTICATED
        }
        return array.find(source.id()) // volume or group id
                .orElseThrow(() -> new SourceNotFoundException(source + " does not exist")); // 5 NOT_FOUND
    }

    private Mirror enabledMirror(ReplicationSource source, Secrets secrets) {
        Mirror m = mirror(source, secrets);
        if (!m.enabled()) throw new PreconditionFailedException("replication is not enabled"); // 9
        return m;
    }

    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() { // the default: volumes, groups
        return EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP);
    }

    @Override
    public Set<Rpc> servedRpcs() { // the default: the six RPCs of the seed spec; destination is declared
        return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    @Override
    public void enable(EnableRequest r) {
        mirror(r.source(), r.secrets()).enable(r.parameters().getOrDefault("schedule", "5m")); // idempotent
    }

    @Override
    public void disable(DisableRequest r) {
        mirror(r.source(), r.secrets()).disable();
    }

    @Override
    public void promote(PromoteRequest r) {
        // The array waits for its peer: no longer than the caller's deadline allows, and never over 30 s.
        enabledMirror(r.source(), r.secrets()).promote(r.force(), r.deadline().remaining(Duration.ofSeconds(30)));
    }

    @Override
    public void demote(DemoteRequest r) {
        enabledMirror(r.source(), r.secrets()).demote();
    }

    @Override
    public ResyncResult resync(ResyncRequest r) { // the client reads a ResyncStatus
        Mirror m = enabledMirror(r.source(), r.secrets());
        if (m.primary()) throw new PreconditionFailedException("not demoted: resync needs a secondary"); // 9
        return m.resync(r.force()) ? ResyncResult.READY : ResyncResult.IN_PROGRESS; // polled until READY
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        Mirror m = enabledMirror(r.source(), r.secrets());
        return ReplicationInfo.of(m.lastSync())
                .withLastSyncBytes(m.lastSyncBytes())
                .withStatus(
                        m.lagging() ? ReplicationInfo.Status.DEGRADED : ReplicationInfo.Status.HEALTHY,
                        m.lagging() ? "peer " + m.peer() + " lags " + m.lag() : "");
    }

    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        Mirror m = enabledMirror(r.source(), r.secrets());
        if (m.peerId() == null) throw new UnavailableException("destination not known yet"); // 14, transient
        return ReplicationDestination.volume(m.peerId()); // a group: volumeGroup(id, Map of member ids)
    }
}
// snippet:end driver

package io.volrep.testkit;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnauthenticatedException;
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
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small spec-correct driver written independently of the reference plugin, so the self-tests do not
 * only prove that the suite agrees with one implementation. Volumes and groups exist when listed.
 * The defective drivers of {@link Defect} and {@link StateDefect} extend it and break one thing each.
 */
class SpecDriver implements ReplicationDriver {
    static final class State {
        boolean enabled;
        boolean primary = true;
        int resyncs;
    }

    final Map<String, State> sources = new ConcurrentHashMap<>();
    final Secrets required;

    SpecDriver(Map<String, String> requiredSecrets, String... ids) {
        this.required = Secrets.of(requiredSecrets);
        for (String id : ids) {
            sources.put(id, new State());
        }
    }

    static SpecDriver standard() {
        return new SpecDriver(Map.of("user", "admin"), "vol-0", "vol-1", "grp-0");
    }

    void authenticate(Secrets secrets) {
        if (!required.isEmpty() && !required.equals(secrets)) {
            throw new UnauthenticatedException("secrets are not valid");
        }
    }

    State find(ReplicationSource source, Secrets secrets) {
        authenticate(secrets);
        State s = sources.get(source.id());
        if (s == null) {
            throw new SourceNotFoundException(source + " does not exist");
        }
        return s;
    }

    State enabled(ReplicationSource source, Secrets secrets) {
        State s = find(source, secrets);
        if (!s.enabled) {
            throw new PreconditionFailedException("replication is not enabled on " + source);
        }
        return s;
    }

    @Override
    public void enable(EnableRequest r) {
        State s = find(r.source(), r.secrets());
        synchronized (s) {
            if (!s.enabled) {
                s.enabled = true;
                s.primary = true;
            }
        }
    }

    @Override
    public void disable(DisableRequest r) {
        State s = find(r.source(), r.secrets());
        synchronized (s) {
            s.enabled = false;
            s.primary = true;
        }
    }

    @Override
    public void promote(PromoteRequest r) {
        State s = enabled(r.source(), r.secrets());
        synchronized (s) {
            s.primary = true;
        }
    }

    @Override
    public void demote(DemoteRequest r) {
        State s = enabled(r.source(), r.secrets());
        synchronized (s) {
            if (s.primary) {
                s.primary = false;
                s.resyncs = 0;
            }
        }
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        State s = enabled(r.source(), r.secrets());
        synchronized (s) {
            if (s.primary) {
                throw new PreconditionFailedException(r.source() + " is not demoted");
            }
            return new ResyncResult(++s.resyncs >= 2);
        }
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        State s = enabled(r.source(), r.secrets());
        if (!s.primary) {
            throw new PreconditionFailedException(r.source() + " is not promoted");
        }
        return ReplicationInfo.of(Instant.now())
                .withLastSyncDuration(Duration.ofMillis(3))
                .withLastSyncBytes(4096)
                .withStatus(ReplicationInfo.Status.HEALTHY, "");
    }

    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        enabled(r.source(), r.secrets());
        return destinationOf(r.source());
    }

    @Override
    public Set<Rpc> servedRpcs() {
        return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    /** The other site names its copy "<id>-b"; a group's member map is left out (allowed: all members or none). */
    static ReplicationDestination destinationOf(ReplicationSource source) {
        return source.kind() == ReplicationSource.Kind.VOLUME_GROUP
                ? ReplicationDestination.volumeGroup(source.id() + "-b", Map.of())
                : ReplicationDestination.volume(source.id() + "-b");
    }
}

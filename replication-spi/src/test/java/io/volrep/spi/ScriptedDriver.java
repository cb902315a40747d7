package io.volrep.spi;

import io.volrep.api.CsiLimits;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** A driver for runtime tests: records the typed requests it receives, and answers what the test scripts. */
final class ScriptedDriver implements ReplicationDriver {
    final List<Object> requests = new CopyOnWriteArrayList<>();
    volatile Runnable onCall = () -> {};
    volatile Function<Object, ResyncResult> resync = r -> ResyncResult.READY;
    volatile Function<Object, ReplicationInfo> info = r -> ReplicationInfo.of(Instant.parse("2026-01-01T00:00:00Z"));
    /** Same kind as the source, id {@code dst-<source id>} (within CSI's 128 bytes), no member map. */
    volatile Function<DestinationRequest, ReplicationDestination> destination =
            r -> r.source().kind() == ReplicationSource.Kind.VOLUME_GROUP
                    ? ReplicationDestination.volumeGroup(destinationId(r.source()), Map.of())
                    : ReplicationDestination.volume(destinationId(r.source()));

    /** {@code dst-<source id>}, or {@code dst-<hash>} where that would break CSI's 128-byte limit on ids. */
    static String destinationId(ReplicationSource source) {
        String id = "dst-" + source.id();
        return CsiLimits.utf8Length(id) <= CsiLimits.MAX_STRING_BYTES
                ? id
                : "dst-" + Integer.toHexString(source.id().hashCode());
    }

    volatile Set<ReplicationSource.Kind> kinds =
            EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP);

    private void record(Object request) {
        requests.add(request);
        onCall.run();
    }

    @Override
    public void enable(EnableRequest request) {
        record(request);
    }

    @Override
    public void disable(DisableRequest request) {
        record(request);
    }

    @Override
    public void promote(PromoteRequest request) {
        record(request);
    }

    @Override
    public void demote(DemoteRequest request) {
        record(request);
    }

    @Override
    public ResyncResult resync(ResyncRequest request) {
        record(request);
        return resync.apply(request);
    }

    @Override
    public ReplicationInfo info(InfoRequest request) {
        record(request);
        return info.apply(request);
    }

    @Override
    public ReplicationDestination destination(DestinationRequest request) {
        record(request);
        return destination.apply(request);
    }

    @Override
    public Set<Rpc> servedRpcs() {
        return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return kinds;
    }
}

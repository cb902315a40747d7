package io.volrep.client;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The operations on one replication source; from {@link ReplicationClient#volume},
 * {@link ReplicationClient#volumeGroup} or {@link ReplicationClient#volumeSnapshot}. Cheap to create.
 *
 * <pre>{@code
 * SourceClient vol = client.volume("pvc-1");
 * vol.enable().call();
 * vol.promote().force().call();
 * ReplicationInfo info = vol.info();                 // info.status(): HEALTHY, DEGRADED, ERROR or UNKNOWN
 * ReplicationDestination where = vol.destination();  // the id on the other site, for a failover
 * }</pre>
 * To drive a source to a desired state, wrap it in a {@code Reconciler} (package {@code reconcile}, which builds
 * on this one): {@code Reconciler.of(vol).reconcile(DesiredState.PRIMARY)}.
 */
public final class SourceClient {
    private final CallEngine engine;
    private final ReplicationSource source;

    SourceClient(CallEngine engine, ReplicationSource source) {
        this.engine = engine;
        this.source = Objects.requireNonNull(source, "source");
    }

    /** The source. */
    public ReplicationSource source() {
        return source;
    }

    /** EnableVolumeReplication. */
    public ToggleCall enable() {
        return new ToggleCall(engine, source, Rpc.ENABLE_VOLUME_REPLICATION);
    }

    /** DisableVolumeReplication. */
    public ToggleCall disable() {
        return new ToggleCall(engine, source, Rpc.DISABLE_VOLUME_REPLICATION);
    }

    /** PromoteVolume. */
    public RoleCall promote() {
        return new RoleCall(engine, source, Rpc.PROMOTE_VOLUME);
    }

    /** DemoteVolume. */
    public RoleCall demote() {
        return new RoleCall(engine, source, Rpc.DEMOTE_VOLUME);
    }

    /** ResyncVolume; see {@link ResyncCall#awaitReady}. */
    public ResyncCall resync() {
        return new ResyncCall(engine, source);
    }

    /** GetVolumeReplicationInfo, configurable ({@code replicationId}, secrets, retry policy). */
    public InfoCall infoCall() {
        return new InfoCall(engine, source);
    }

    /** GetVolumeReplicationInfo with the defaults, waiting for the answer. */
    public ReplicationInfo info() {
        return infoCall().call();
    }

    /** GetVolumeReplicationInfo with the defaults, without blocking. */
    public CompletableFuture<ReplicationInfo> infoAsync() {
        return infoCall().callAsync();
    }

    /** GetReplicationDestinationInfo (upstream 2026), configurable (secrets, retry policy). */
    public DestinationCall destinationCall() {
        return new DestinationCall(engine, source);
    }

    /**
     * GetReplicationDestinationInfo with the defaults, waiting for the answer: the destination volume, or the
     * destination group with its member map. Not expressible in the legacy revisions.
     */
    public ReplicationDestination destination() {
        return destinationCall().call();
    }

    /** GetReplicationDestinationInfo with the defaults, without blocking. */
    public CompletableFuture<ReplicationDestination> destinationAsync() {
        return destinationCall().callAsync();
    }

    @Override
    public String toString() {
        return "SourceClient[" + source + "]";
    }
}

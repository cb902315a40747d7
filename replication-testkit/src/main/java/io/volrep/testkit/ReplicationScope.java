package io.volrep.testkit;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.IdentityGrpc;
import java.util.Set;

/**
 * Whether a run judges {@code replication.Controller}: a plugin is judged on what its Identity advertises. A plugin
 * that advertises {@code VolumeReplication.VOLUME_REPLICATION}, that serves replication (its DisableVolumeReplication
 * answers anything but 12 UNIMPLEMENTED, advertised or not: Identity's checks say what is missing), or that has no
 * Identity to ask, is judged on replication; one that advertises other services only (a volume group plugin, with
 * {@code CONTROLLER_SERVICE} and the {@code VolumeGroup} capabilities) and does not serve replication gets its
 * replication checks reported not applicable. {@code CONTROLLER_SERVICE} is "RPCs that require access to the storage
 * system" upstream, not replication.
 *
 * @param replication true when the run judges replication.Controller
 * @param why when it does not, why, as NOT APPLICABLE reasons say it
 */
record ReplicationScope(boolean replication, String why) {
    /** The first words of the topics whose checks judge replication.Controller. */
    private static final Set<String> REPLICATION_TOPICS = Set.of(
            "fixtures",
            "lifecycle",
            "isolation",
            "response-validity",
            "request-forms",
            "two-sites",
            "fixtures-restored");

    /** Asks the session's target: its Identity, and when that advertises no replication, its DisableVolumeReplication. */
    static ReplicationScope of(ConformanceSession session) {
        ConformanceConfig config = session.config();
        GetCapabilitiesResponse caps;
        try {
            caps = ClientCalls.blockingUnaryCall(
                    session.channel(),
                    IdentityGrpc.getGetCapabilitiesMethod(),
                    Wire.options(config.callTimeout()),
                    GetCapabilitiesRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            // No Identity (or none that answers): nothing says what the plugin serves, so everything is judged.
            return new ReplicationScope(true, "");
        }
        boolean advertised = caps.getCapabilitiesList().stream()
                .anyMatch(c -> c.hasVolumeReplication()
                        && c.getVolumeReplication().getType() == Capability.VolumeReplication.Type.VOLUME_REPLICATION);
        if (advertised) {
            return new ReplicationScope(true, "");
        }
        ConformanceContext ctx = session.context(CheckScheduler.Lease.NONE);
        Outcome served = ctx.call(
                Rpc.DISABLE_VOLUME_REPLICATION,
                Addressing.volume(config.volumes().get(0)));
        if (served.code() != StatusCode.UNIMPLEMENTED) {
            return new ReplicationScope(true, "");
        }
        return new ReplicationScope(
                false,
                "replication.Controller is not advertised (Identity's GetCapabilities lists no"
                        + " VolumeReplication.VOLUME_REPLICATION) and not served (DisableVolumeReplication answers 12"
                        + " UNIMPLEMENTED): the plugin is judged on what it advertises");
    }

    /** True for the checks that judge replication.Controller (alone, or beside the volume group service). */
    static boolean judges(Check check) {
        String first = check.id().substring(0, Math.max(0, check.id().indexOf('/')));
        return REPLICATION_TOPICS.contains(first)
                || Rpc.fromMethodName(first).filter(Rpc::isReplication).isPresent()
                || check.id().equals(VolumeGroupLifecycleChecks.ID);
    }
}

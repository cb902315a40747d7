package io.volrep.client;

import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.volrep.api.ReplicationException;
import io.volrep.api.StatusCode;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The CSI-Addons Identity calls. They are single attempts (a discovery step the caller repeats at will), not
 * part of the replication retry machinery; failures map to the code's {@link ReplicationException} subclass.
 */
final class IdentityCalls {
    private final Channel channel;
    private final RetryPolicy policy;

    IdentityCalls(Channel channel, RetryPolicy policy) {
        this.channel = channel;
        this.policy = policy;
    }

    PluginIdentity identity() {
        GetIdentityResponse r = call("GetIdentity", s -> s.getIdentity(GetIdentityRequest.getDefaultInstance()));
        return new PluginIdentity(r.getName(), r.getVendorVersion(), r.getManifestMap());
    }

    PluginCapabilities capabilities() {
        var response = call("GetCapabilities", s -> s.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()));
        EnumSet<PluginCapabilities.Service> services = EnumSet.noneOf(PluginCapabilities.Service.class);
        boolean replication = false;
        List<String> others = new ArrayList<>();
        for (Capability c : response.getCapabilitiesList()) {
            switch (c.getTypeCase()) {
                case SERVICE -> {
                    switch (c.getService().getType()) {
                        case CONTROLLER_SERVICE -> services.add(PluginCapabilities.Service.CONTROLLER_SERVICE);
                        case NODE_SERVICE -> services.add(PluginCapabilities.Service.NODE_SERVICE);
                        default -> others.add("service." + c.getService().getTypeValue());
                    }
                }
                case VOLUME_REPLICATION -> {
                    if (c.getVolumeReplication().getType()
                            == Capability.VolumeReplication.Type.VOLUME_REPLICATION) {
                        replication = true;
                    } else {
                        // Named when this build knows the type (GET_REPLICATION_DESTINATION_INFO), else numbered.
                        var type = c.getVolumeReplication().getType();
                        others.add("volume_replication." + (type == Capability.VolumeReplication.Type.UNRECOGNIZED
                                ? String.valueOf(c.getVolumeReplication().getTypeValue()) : type.name()));
                    }
                }
                case RECLAIM_SPACE -> others.add("reclaim_space." + c.getReclaimSpace().getType());
                case NETWORK_FENCE -> others.add("network_fence." + c.getNetworkFence().getType());
                case VOLUME_GROUP -> others.add("volume_group." + c.getVolumeGroup().getType());
                case ENCRYPTION_KEY_ROTATION -> others.add("encryption_key_rotation."
                        + c.getEncryptionKeyRotation().getType());
                case TYPE_NOT_SET -> others.add("unknown");
            }
        }
        return new PluginCapabilities(services, replication, others);
    }

    ProbeResult probe() {
        ProbeResponse r = call("Probe", s -> s.probe(ProbeRequest.getDefaultInstance()));
        return r.hasReady() ? new ProbeResult(r.getReady().getValue(), true) : new ProbeResult(true, false);
    }

    private <T> T call(String method, Function<IdentityGrpc.IdentityBlockingStub, T> rpc) {
        IdentityGrpc.IdentityBlockingStub stub = IdentityGrpc.newBlockingStub(channel)
                .withDeadlineAfter(policy.perAttemptTimeout().toNanos(), TimeUnit.NANOSECONDS);
        try {
            return rpc.apply(stub);
        } catch (StatusRuntimeException e) {
            Status status = e.getStatus();
            StatusCode code = StatusCode.fromValue(status.getCode().value());
            String description = status.getDescription();
            String message = "identity.Identity/" + method + " failed with " + code.display()
                    + (description == null || description.isEmpty() ? "" : ": " + description);
            if (code == StatusCode.UNIMPLEMENTED) {
                message = "the plugin does not serve the CSI-Addons Identity service (" + code.display() + " from "
                        + "identity.Identity/" + method + ")";
            }
            throw ReplicationException.of(code, message, null, 1, status.getCause());
        }
    }
}

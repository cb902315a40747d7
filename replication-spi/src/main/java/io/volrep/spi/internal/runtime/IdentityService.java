package io.volrep.spi.internal.runtime;

import com.google.protobuf.BoolValue;
import io.grpc.stub.StreamObserver;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.api.internal.SafeText;
import io.volrep.api.internal.wire.AnswerProblem;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CSI-Addons {@code identity.Identity}, derived from what the server serves: GetIdentity answers the plugin's name
 * and vendor version; GetCapabilities advertises {@code Service.CONTROLLER_SERVICE} when {@code replication.Controller}
 * or {@code volumegroup.Controller} is served, {@code VolumeReplication.VOLUME_REPLICATION} with the former,
 * {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO} when its driver implements the destination RPC, one
 * {@code VolumeGroup} capability per type the volume group driver serves or has ({@code VOLUME_GROUP},
 * {@code MODIFY_VOLUME_GROUP}, ..., {@code LIMIT_VOLUME_TO_ONE_VOLUME_GROUP}), and {@code Service.NODE_SERVICE} when
 * {@code healer.HealerNode} is served (the healer has no capability of its own: the oneof number an upstream draft
 * gave it, 4, is {@code volume_replication}); Probe answers the readiness check's verdict (a check that throws answers
 * {@code ready = false}, logged). Identity calls take no secrets and name no volume: they bypass the per-source guard,
 * so concurrent probes never see ABORTED.
 *
 * <pre>{@code
 * new IdentityService("reference.volrep.io", "0.1.0", true, false, false, () -> true).bindService();
 * }</pre>
 */
public final class IdentityService extends IdentityGrpc.IdentityImplBase {
    // The logger keeps the name operators configure (storage-vendors.md, "Logging"), from before the package became
    // internal.
    private static final Logger LOG = LoggerFactory.getLogger("io.volrep.spi.runtime.IdentityService");

    private final GetIdentityResponse identity;
    private final GetCapabilitiesResponse capabilities;
    private final BooleanSupplier readiness;

    /**
     * Identity for a server that serves {@code replication.Controller} ({@code replication}), whose driver implements
     * GetReplicationDestinationInfo ({@code destinations}, advertised as
     * {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO}), and that serves {@code healer.HealerNode}
     * ({@code healer}).
     */
    public IdentityService(
            String name,
            String vendorVersion,
            boolean replication,
            boolean destinations,
            boolean healer,
            BooleanSupplier readiness) {
        this(name, vendorVersion, replication, destinations, Set.of(), healer, readiness);
    }

    /**
     * As above; {@code volumeGroups} (empty when {@code volumegroup.Controller} is not served) are advertised as
     * {@code VolumeGroup} capabilities, in the enum's order.
     */
    public IdentityService(
            String name,
            String vendorVersion,
            boolean replication,
            boolean destinations,
            Set<VolumeGroupCapability> volumeGroups,
            boolean healer,
            BooleanSupplier readiness) {
        this.identity = checkedIdentity(name, vendorVersion);
        GetCapabilitiesResponse.Builder caps = GetCapabilitiesResponse.newBuilder();
        if (replication || !volumeGroups.isEmpty()) {
            caps.addCapabilities(Capability.newBuilder()
                    .setService(Capability.Service.newBuilder().setType(Capability.Service.Type.CONTROLLER_SERVICE)));
        }
        if (healer) {
            caps.addCapabilities(Capability.newBuilder()
                    .setService(Capability.Service.newBuilder().setType(Capability.Service.Type.NODE_SERVICE)));
        }
        if (replication) {
            caps.addCapabilities(Capability.newBuilder()
                    .setVolumeReplication(Capability.VolumeReplication.newBuilder()
                            .setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION)));
        }
        if (replication && destinations) {
            caps.addCapabilities(Capability.newBuilder()
                    .setVolumeReplication(Capability.VolumeReplication.newBuilder()
                            .setType(Capability.VolumeReplication.Type.GET_REPLICATION_DESTINATION_INFO)));
        }
        EnumSet<VolumeGroupCapability> ordered = EnumSet.noneOf(VolumeGroupCapability.class);
        ordered.addAll(volumeGroups);
        for (VolumeGroupCapability c : ordered) {
            caps.addCapabilities(Capability.newBuilder()
                    .setVolumeGroup(Capability.VolumeGroup.newBuilder().setTypeValue(c.wireNumber())));
        }
        this.capabilities = caps.build();
        this.readiness = Objects.requireNonNull(readiness, "readiness");
    }

    /**
     * Checks what GetIdentity would answer against the spec's rules ({@link AnswerRules#identity}): the name in
     * domain-name notation, at most 63 characters; a vendor version. The runtime answers it unchanged for as long as
     * it runs, so a bad one is refused before it starts.
     *
     * <pre>{@code
     * IdentityService.requireValidIdentity("rbd.example.com", "2.4.1");
     * }</pre>
     *
     * @throws IllegalArgumentException naming the field
     */
    public static void requireValidIdentity(String name, String vendorVersion) {
        checkedIdentity(name, vendorVersion);
    }

    private static GetIdentityResponse checkedIdentity(String name, String vendorVersion) {
        GetIdentityResponse identity = GetIdentityResponse.newBuilder()
                .setName(Objects.requireNonNull(name, "name"))
                .setVendorVersion(Objects.requireNonNull(vendorVersion, "vendorVersion"))
                .build();
        List<AnswerProblem> problems = AnswerRules.identity(identity);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "GetIdentity would answer against the spec: " + AnswerProblem.describe(problems));
        }
        return identity;
    }

    @Override
    public void getIdentity(GetIdentityRequest request, StreamObserver<GetIdentityResponse> observer) {
        LOG.debug("GetIdentity -> {} {}", identity.getName(), identity.getVendorVersion());
        observer.onNext(identity);
        observer.onCompleted();
    }

    @Override
    public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> observer) {
        observer.onNext(capabilities);
        observer.onCompleted();
    }

    @Override
    public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
        boolean ready;
        try {
            ready = readiness.getAsBoolean();
        } catch (RuntimeException e) {
            LOG.warn("Probe: the readiness check failed, answering ready = false: {}", SafeText.escape(e.toString()));
            ready = false;
        }
        LOG.debug("Probe -> ready = {}", ready);
        observer.onNext(ProbeResponse.newBuilder().setReady(BoolValue.of(ready)).build());
        observer.onCompleted();
    }
}

package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.Rpc;
import io.volrep.api.internal.wire.AnswerProblem;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.ProbeResponse;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Function;

/**
 * One CSI-Addons Identity call ({@code identity.Identity}), sent through the {@link CallEngine} like every other
 * call: listeners and observers see it, it waits for a plugin that is not up yet (unless the policy fails fast)
 * and transport failures are retried with back-off within the policy's timeouts. The spec has no error table
 * for Identity: {@link io.volrep.api.ErrorScheme#recovery} classes 12 UNIMPLEMENTED (the plugin does not serve
 * the service) {@code NEVER} and every other non-transport code {@code INSPECT_LOGS}, not retried by default. An
 * answer that breaks the spec's rules ({@link AnswerRules}: a name outside domain-name notation, an empty vendor
 * version, a manifest over 4 KiB) fails with {@link io.volrep.api.ProtocolViolationException} naming the field.
 * Not public: {@link ReplicationClient#identity()}, {@link ReplicationClient#capabilities()},
 * {@link ReplicationClient#probe()} and their async variants send these.
 *
 * @param <R> the typed answer
 */
final class IdentityCall<R> extends TypedCall<IdentityCall<R>, R> {
    private final Function<Message, List<AnswerProblem>> rules;
    private final Function<Message, R> typed;

    private IdentityCall(
            CallEngine engine, Rpc rpc, Function<Message, List<AnswerProblem>> rules, Function<Message, R> typed) {
        super(engine, rpc);
        this.rules = rules;
        this.typed = typed;
    }

    static IdentityCall<PluginIdentity> identity(CallEngine engine) {
        return new IdentityCall<>(engine, Rpc.GET_IDENTITY, m -> AnswerRules.identity((GetIdentityResponse) m), m -> {
            GetIdentityResponse r = (GetIdentityResponse) m;
            return new PluginIdentity(r.getName(), r.getVendorVersion(), r.getManifestMap());
        });
    }

    static IdentityCall<PluginCapabilities> capabilities(CallEngine engine) {
        return new IdentityCall<>(
                engine,
                Rpc.GET_CAPABILITIES,
                m -> AnswerRules.capabilities((GetCapabilitiesResponse) m),
                m -> capabilities((GetCapabilitiesResponse) m));
    }

    /** An unset {@code ready} means ready. */
    static IdentityCall<ProbeResult> probe(CallEngine engine) {
        return new IdentityCall<>(engine, Rpc.PROBE, m -> AnswerRules.probe((ProbeResponse) m), m -> {
            ProbeResponse r = (ProbeResponse) m;
            return r.hasReady() ? new ProbeResult(r.getReady().getValue(), true) : new ProbeResult(true, false);
        });
    }

    @Override
    IdentitySpec spec() {
        return new IdentitySpec(rpc, policy);
    }

    @Override
    R result(Message response, int attempts) {
        WireMapping.requireNoProblems(rules.apply(response), rpc, attempts);
        return typed.apply(response);
    }

    private static PluginCapabilities capabilities(GetCapabilitiesResponse response) {
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
                    if (c.getVolumeReplication().getType() == Capability.VolumeReplication.Type.VOLUME_REPLICATION) {
                        replication = true;
                    } else {
                        // Named when this build knows the type (GET_REPLICATION_DESTINATION_INFO), else numbered.
                        var type = c.getVolumeReplication().getType();
                        others.add("volume_replication."
                                + (type == Capability.VolumeReplication.Type.UNRECOGNIZED
                                        ? String.valueOf(
                                                c.getVolumeReplication().getTypeValue())
                                        : type.name()));
                    }
                }
                case RECLAIM_SPACE ->
                    others.add("reclaim_space." + c.getReclaimSpace().getType());
                case NETWORK_FENCE ->
                    others.add("network_fence." + c.getNetworkFence().getType());
                case VOLUME_GROUP ->
                    others.add("volume_group." + c.getVolumeGroup().getType());
                case ENCRYPTION_KEY_ROTATION ->
                    others.add("encryption_key_rotation."
                            + c.getEncryptionKeyRotation().getType());
                case TYPE_NOT_SET -> others.add("unknown");
            }
        }
        return new PluginCapabilities(services, replication, others);
    }
}

package io.volrep.testkit;

import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import java.util.List;
import java.util.function.Predicate;

/**
 * The CSI-Addons {@code identity.Identity} checks. Identity is optional for a plugin: 12 UNIMPLEMENTED reports
 * "not implemented". When served, it must name the plugin, advertise {@code CONTROLLER_SERVICE} and
 * {@code VolumeReplication.VOLUME_REPLICATION} (the target serves replication), and answer Probe with
 * {@code ready} true or absent.
 */
final class IdentityChecks {
    static final String GROUP = "Identity";
    static final String NAME = "Identity: GetIdentity answers a name";
    static final String REPLICATION = "Identity: GetCapabilities advertises VolumeReplication.VOLUME_REPLICATION";
    static final String CONTROLLER = "Identity: GetCapabilities advertises Service.CONTROLLER_SERVICE";
    static final String PROBE = "Identity: Probe answers ready (true or absent)";

    private IdentityChecks() {
    }

    static CheckGroup group() {
        return CheckGroup.of(GROUP, config -> checks());
    }

    private static <Q, R> R call(ConformanceContext ctx, Channel channel, MethodDescriptor<Q, R> method, Q request) {
        try {
            return ClientCalls.blockingUnaryCall(channel, method, Wire.options(ctx.config().callTimeout()), request);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
                ctx.notImplemented("identity.Identity/" + method.getBareMethodName());
            }
            ctx.fail("identity.Identity/" + method.getBareMethodName() + " -> " + Wire.outcome(null, e.getStatus())
                    .describe());
            throw e;
        }
    }

    /** Fails unless GetCapabilities lists a capability {@code advertises} accepts ({@code what} names it). */
    private static void requireAdvertised(ConformanceContext ctx, String what, Predicate<Capability> advertises) {
        GetCapabilitiesResponse caps = call(ctx, ctx.channel(), IdentityGrpc.getGetCapabilitiesMethod(),
                GetCapabilitiesRequest.getDefaultInstance());
        if (caps.getCapabilitiesList().stream().noneMatch(advertises)) {
            ctx.fail("the plugin serves replication.Controller but GetCapabilities does not advertise " + what + ": "
                    + caps.getCapabilitiesList());
        }
    }

    static List<Check> checks() {
        return List.of(
                Check.required(NAME, ctx -> {
                    GetIdentityResponse identity = call(ctx, ctx.channel(), IdentityGrpc.getGetIdentityMethod(),
                            GetIdentityRequest.getDefaultInstance());
                    if (identity.getName().isBlank()) {
                        ctx.fail("GetIdentity answered an empty name (REQUIRED)");
                    }
                }).withId("identity/plugin/name"),
                Check.required(REPLICATION, ctx -> requireAdvertised(ctx, "VolumeReplication.VOLUME_REPLICATION",
                        c -> c.hasVolumeReplication()
                                && c.getVolumeReplication().getType() == Capability.VolumeReplication.Type.VOLUME_REPLICATION))
                        .withId("identity/plugin/volume-replication-advertised"),
                Check.required(CONTROLLER, ctx -> requireAdvertised(ctx, "Service.CONTROLLER_SERVICE",
                        c -> c.hasService() && c.getService().getType() == Capability.Service.Type.CONTROLLER_SERVICE))
                        .withId("identity/plugin/controller-service-advertised"),
                Check.required(PROBE, ctx -> {
                    ProbeResponse probe = call(ctx, ctx.channel(), IdentityGrpc.getProbeMethod(),
                            ProbeRequest.getDefaultInstance());
                    if (probe.hasReady() && !probe.getReady().getValue()) {
                        ctx.fail("Probe answered ready = false: the plugin is not ready to serve");
                    }
                }).withId("identity/plugin/probe-ready"));
    }
}

package io.volrep.testkit;

import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.opentest4j.TestAbortedException;

/**
 * The CSI-Addons {@code identity.Identity} checks. Identity is optional for a plugin: 12 UNIMPLEMENTED reports
 * "not implemented". When served, it must name the plugin as the spec's rules say (domain-name notation, at most 63
 * characters, with a vendor version: the {@link io.volrep.api.internal.wire.AnswerRules} volrep's client applies too), advertise
 * {@code CONTROLLER_SERVICE} and {@code VolumeReplication.VOLUME_REPLICATION} (the target serves replication), and
 * answer Probe with {@code ready} true or absent. What it advertises is held against what the plugin does ({@link #PROMISES}): an
 * advertised capability whose RPC answers 12 UNIMPLEMENTED fails, an RPC served without its capability is a warning.
 */
final class IdentityChecks {
    static final String GROUP = "Identity";
    static final String NAME = "Identity: GetIdentity answers a name";
    static final String REPLICATION = "Identity: GetCapabilities advertises VolumeReplication.VOLUME_REPLICATION";
    static final String CONTROLLER = "Identity: GetCapabilities advertises Service.CONTROLLER_SERVICE";
    static final String PROBE = "Identity: Probe answers ready (true or absent)";
    static final String ADVERTISED_SERVED =
            "Identity: every RPC of an advertised capability is served (not 12" + " UNIMPLEMENTED)";
    static final String SERVED_ADVERTISED = "Identity: every optional RPC served is advertised (else a warning:"
            + " orchestrators that read the capabilities never call it)";

    /**
     * What an advertised capability promises: RPCs that then must not answer 12 UNIMPLEMENTED.
     *
     * @param capability how reports name it
     * @param advertised whether a capability of GetCapabilities is this one
     * @param rpcs the RPCs it promises
     * @param requiredWhenServed true when serving the RPCs without advertising the capability is a failure of a check
     *                           of its own (VOLUME_REPLICATION, CONTROLLER_SERVICE), false when it is a warning
     */
    record Promise(String capability, Predicate<Capability> advertised, List<Rpc> rpcs, boolean requiredWhenServed) {}

    /**
     * The capabilities of the spec's Identity that name RPCs volrep can call. Not here: {@code Service.NODE_SERVICE}
     * (upstream's node service covers other RPCs, and the healer has no capability upstream), the reclaim-space,
     * network-fence and key-rotation services (not volrep's), and {@code VolumeGroup}, whose promises
     * {@link VolumeGroupChecks} holds against its own service (its RPCs need a group, not the main fixture). Promote,
     * demote, resync and info are promised by no capability: the spec lets them answer 12.
     */
    static final Promise CONTROLLER_SERVICE = new Promise(
            "Service.CONTROLLER_SERVICE",
            c -> c.hasService() && c.getService().getType() == Capability.Service.Type.CONTROLLER_SERVICE,
            List.of(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DISABLE_VOLUME_REPLICATION),
            true);

    static final Promise VOLUME_REPLICATION = new Promise(
            "VolumeReplication.VOLUME_REPLICATION",
            c -> c.hasVolumeReplication()
                    && c.getVolumeReplication().getType() == Capability.VolumeReplication.Type.VOLUME_REPLICATION,
            List.of(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DISABLE_VOLUME_REPLICATION),
            true);
    static final List<Promise> PROMISES = List.of(
            CONTROLLER_SERVICE,
            VOLUME_REPLICATION,
            new Promise(
                    "VolumeReplication.GET_REPLICATION_DESTINATION_INFO",
                    c -> c.hasVolumeReplication()
                            && c.getVolumeReplication().getType()
                                    == Capability.VolumeReplication.Type.GET_REPLICATION_DESTINATION_INFO,
                    List.of(Rpc.GET_REPLICATION_DESTINATION_INFO),
                    false));

    private IdentityChecks() {}

    static CheckGroup group() {
        return CheckGroup.of(GROUP, config -> checks());
    }

    private static <Q, R> R call(ConformanceContext ctx, Channel channel, MethodDescriptor<Q, R> method, Q request) {
        try {
            return ClientCalls.blockingUnaryCall(
                    channel, method, Wire.options(ctx.config().callTimeout()), request);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
                ctx.notImplemented("identity.Identity/" + method.getBareMethodName());
            }
            ctx.fail("identity.Identity/" + method.getBareMethodName() + " -> "
                    + Wire.outcome(null, e.getStatus()).describe());
            throw e;
        }
    }

    /** GetCapabilities' answer, held to the answer rules. */
    private static GetCapabilitiesResponse capabilities(ConformanceContext ctx) {
        GetCapabilitiesResponse caps = call(
                ctx,
                ctx.channel(),
                IdentityGrpc.getGetCapabilitiesMethod(),
                GetCapabilitiesRequest.getDefaultInstance());
        ResponseRules.requireValid(ctx, Rpc.GET_CAPABILITIES, caps);
        return caps;
    }

    /**
     * True unless {@code rpc} answers 12 UNIMPLEMENTED to a well-formed call on the main fixture (replication disabled,
     * so only enable changes anything, and the suite restores it): any other answer, a refusal included, means served.
     */
    private static boolean served(ConformanceContext ctx, Rpc rpc) {
        return ctx.call(rpc, ctx.volume()).code() != StatusCode.UNIMPLEMENTED;
    }

    /** The promises whose RPCs the plugin's revision has (v0.1.x: no GetReplicationDestinationInfo). */
    private static List<Promise> promises(ConformanceContext ctx) {
        return PROMISES.stream()
                .filter(p -> p.rpcs().stream().allMatch(ctx.dialect()::supports))
                .toList();
    }

    /**
     * Probe until it answers ready, within the settle timeout: {@code ready = false} is CSI's "still initializing",
     * which an orchestrator polls (a plugin's first connection to its storage may take a while on a loaded machine).
     */
    private static void probeAnswersReady(ConformanceContext ctx) {
        Supplier<ProbeResponse> probe = () -> {
            ProbeResponse r =
                    call(ctx, ctx.channel(), IdentityGrpc.getProbeMethod(), ProbeRequest.getDefaultInstance());
            ResponseRules.requireValid(ctx, Rpc.PROBE, r);
            return r;
        };
        Predicate<ProbeResponse> notReady = r -> r.hasReady() && !r.getReady().getValue();
        SettlePolling.Settled<ProbeResponse> settled = ctx.settle(probe.get(), probe, notReady);
        if (notReady.test(settled.last())) {
            ctx.fail("Probe answered ready = false: the plugin is not ready to serve"
                    + (settled.polls() > 0 ? " [still " + ctx.unsettled(settled) + "]" : ""));
        }
    }

    private static void advertisedRpcsAreServed(ConformanceContext ctx) {
        GetCapabilitiesResponse caps = capabilities(ctx);
        if (!ctx.replicationInScope()) {
            // CONTROLLER_SERVICE alone (a volume group plugin) promises no replication RPC: VOLUME_REPLICATION does.
            return;
        }
        List<String> broken = new ArrayList<>();
        List<Rpc> unimplemented = new ArrayList<>();
        for (Promise promise : promises(ctx)) {
            if (caps.getCapabilitiesList().stream().anyMatch(promise.advertised())) {
                promise.rpcs().stream().filter(rpc -> !served(ctx, rpc)).forEach(rpc -> {
                    unimplemented.add(rpc);
                    broken.add(promise.capability() + " is advertised but " + rpc.methodName()
                            + " answers 12 UNIMPLEMENTED");
                });
            }
        }
        if (!broken.isEmpty()) {
            // An RPC the spec does not let be unimplemented (enable, disable) is named by its first walk check.
            ctx.failBecause(
                    unimplemented.stream()
                            .filter(rpc -> !ctx.scheme().lists(rpc, StatusCode.UNIMPLEMENTED))
                            .map(rpc -> LifecycleChecks.walkId(rpc, Kind.VOLUME, LifecycleModel.State.DISABLED))
                            .toList(),
                    String.join("; ", broken) + ": an orchestrator that reads the capabilities calls it and fails");
        }
    }

    private static void servedRpcsAreAdvertised(ConformanceContext ctx) {
        GetCapabilitiesResponse caps = capabilities(ctx);
        if (!ctx.replicationInScope()) {
            return;
        }
        List<String> unadvertised = new ArrayList<>();
        for (Promise promise : promises(ctx)) {
            if (!promise.requiredWhenServed()
                    && caps.getCapabilitiesList().stream().noneMatch(promise.advertised())) {
                promise.rpcs().stream()
                        .filter(rpc -> served(ctx, rpc))
                        .forEach(rpc -> unadvertised.add(rpc.methodName()
                                + " is served but GetCapabilities does not advertise " + promise.capability()));
            }
        }
        if (!unadvertised.isEmpty()) {
            ctx.warn(String.join("; ", unadvertised) + " (orchestrators that read the capabilities, such as"
                    + " kubernetes-csi-addons, never call it)");
        }
    }

    /**
     * Fails unless GetCapabilities lists {@code promise}'s capability when the plugin serves replication; not
     * applicable when it neither advertises nor serves it (a plugin of other services is judged on what it advertises).
     */
    private static void requireAdvertised(ConformanceContext ctx, Promise promise) {
        GetCapabilitiesResponse caps = capabilities(ctx);
        if (caps.getCapabilitiesList().stream().anyMatch(promise.advertised())) {
            return;
        }
        if (promise.equals(CONTROLLER_SERVICE) && advertisesVolumeGroups(caps)) {
            ctx.fail("the plugin serves volumegroup.Controller but GetCapabilities does not advertise "
                    + promise.capability() + ": " + caps.getCapabilitiesList());
        }
        if (!ctx.replicationInScope()) {
            throw new TestAbortedException(ConformanceContext.NOT_APPLICABLE_PREFIX
                    + "replication.Controller is neither advertised nor served: " + promise.capability()
                    + " is not asked of this plugin");
        }
        ctx.fail("the plugin serves replication.Controller but GetCapabilities does not advertise "
                + promise.capability() + ": " + caps.getCapabilitiesList());
    }

    private static boolean advertisesVolumeGroups(GetCapabilitiesResponse caps) {
        return caps.getCapabilitiesList().stream().anyMatch(Capability::hasVolumeGroup);
    }

    static List<Check> checks() {
        return List.of(
                // The name's rules (domain-name notation, at most 63 characters) are replication-api's rule set for
                // Identity answers (AnswerRules), as volrep's client applies them: this is their one call site here.
                Check.required(
                                NAME,
                                ctx -> ResponseRules.requireValid(
                                        ctx,
                                        Rpc.GET_IDENTITY,
                                        call(
                                                ctx,
                                                ctx.channel(),
                                                IdentityGrpc.getGetIdentityMethod(),
                                                GetIdentityRequest.getDefaultInstance())))
                        .withId("identity/plugin/name")
                        .withHint("answer a name in domain-name notation (at most 63 characters, alphanumeric at both"
                                + " ends, dashes, dots and alphanumerics between) and a vendor version"),
                Check.required(REPLICATION, ctx -> requireAdvertised(ctx, VOLUME_REPLICATION))
                        .withId("identity/plugin/volume-replication-advertised"),
                Check.required(CONTROLLER, ctx -> requireAdvertised(ctx, CONTROLLER_SERVICE))
                        .withId("identity/plugin/controller-service-advertised"),
                Check.required(PROBE, IdentityChecks::probeAnswersReady).withId("identity/plugin/probe-ready"),
                Check.required(ADVERTISED_SERVED, IdentityChecks::advertisedRpcsAreServed)
                        .withId("identity/plugin/advertised-rpcs-served")
                        .withHint("advertise a capability only for the RPCs the plugin implements (the SPI derives"
                                + " GET_REPLICATION_DESTINATION_INFO from ReplicationDriver.servedRpcs())"),
                Check.optional(SERVED_ADVERTISED, IdentityChecks::servedRpcsAreAdvertised)
                        .withId("identity/plugin/served-rpcs-advertised")
                        .withHint("advertise the capability of every optional RPC the plugin serves"));
    }
}

package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ResyncVolumeResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The built-in checks of {@code replication.Controller}. Expected codes come from {@link ErrorScheme#spec()},
 * and each error check is named after its row ({@link ErrorScheme.Row#displayName()}) plus, in brackets,
 * the case it provokes.
 *
 * <p>Fixture assumption: every configured volume and group starts with replication disabled (the spec has
 * no "get state" RPC; the Fixtures checks probe it with GetVolumeReplicationInfo). A freshly enabled source
 * is promoted before anything that needs a primary.
 */
final class ControllerChecks {
    /** An id no fixture uses; the plugin must answer 5 NOT_FOUND for it. */
    static final String MISSING_VOLUME = "volrep-conformance-no-such-volume";
    static final String MISSING_GROUP = "volrep-conformance-no-such-group";
    static final int SIMULTANEOUS_CALLS = 6;

    static final List<Rpc> RPCS = List.of(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DISABLE_VOLUME_REPLICATION,
            Rpc.PROMOTE_VOLUME, Rpc.DEMOTE_VOLUME, Rpc.RESYNC_VOLUME, Rpc.GET_VOLUME_REPLICATION_INFO);

    static final String LIFECYCLE = "Lifecycle: enable, promote, demote, resync until ready, promote, disable -> 0 OK";
    static final String LAST_SYNC_TIME = "GetVolumeReplicationInfo: last_sync_time is REQUIRED";
    static final String LAST_SYNC_BYTES = "GetVolumeReplicationInfo: last_sync_bytes MUST NOT be negative";
    static final String LAST_SYNC_DURATION = "GetVolumeReplicationInfo: last_sync_duration is not negative";
    static final String RESYNC_READY = "ResyncVolume: ready becomes true within the resync timeout";
    static final String FORM_SOURCE = "Request form: replication_source alone -> 0 OK on every RPC";
    static final String FORM_DEPRECATED = "Request form: deprecated volume_id alone -> 0 OK on every RPC";

    private static final ErrorScheme SCHEME = ErrorScheme.spec();

    private ControllerChecks() {
    }

    /** The row's display name, e.g. {@code "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION"}. */
    static String row(Rpc rpc, StatusCode code) {
        return SCHEME.find(rpc, code)
                .orElseThrow(() -> new IllegalStateException("the spec's table for " + rpc + " has no " + code))
                .displayName();
    }

    /** Name of the check for a row and a case: {@code "<row> [<case>]"}. */
    static String rowCase(Rpc rpc, StatusCode code, String variant) {
        return row(rpc, code) + " [" + variant + "]";
    }

    static String idempotent(Rpc rpc) {
        return rpc.methodName() + ": idempotent: the same call twice -> the same answer";
    }

    static List<CheckGroup> groups() {
        List<CheckGroup> groups = new ArrayList<>();
        groups.add(group("Fixtures", ControllerChecks::fixtures));
        for (Rpc rpc : RPCS) {
            groups.add(group(rpc.methodName(), config -> rpcChecks(rpc)));
        }
        groups.add(group("Lifecycle", ControllerChecks::lifecycle));
        groups.add(group("Response validity", config -> responseValidity()));
        groups.add(group("Request forms", config -> requestForms()));
        return groups;
    }

    private static CheckGroup group(String name, Function<ConformanceConfig, List<Check>> checks) {
        return new CheckGroup() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Check> checks(ConformanceConfig config) {
                return checks.apply(config);
            }
        };
    }

    // ---------------------------------------------------------------- fixtures

    private static List<Check> fixtures(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        for (String id : config.volumes()) {
            checks.add(Check.required("Fixtures: volume " + id + " exists with replication disabled",
                    ctx -> probeFixture(ctx, Addressing.volume(id))));
        }
        for (String id : config.volumeGroups()) {
            checks.add(Check.required("Fixtures: volume group " + id + " exists with replication disabled",
                    ctx -> probeFixture(ctx, Addressing.volumeGroup(id))));
        }
        return checks;
    }

    private static void probeFixture(ConformanceContext ctx, Addressing target) {
        // Read-only probe: a source with replication disabled cannot report replication info.
        Outcome info = ctx.call(Rpc.GET_VOLUME_REPLICATION_INFO, target);
        switch (info.code()) {
            case FAILED_PRECONDITION:
                return;
            case UNIMPLEMENTED:
                ctx.skip("GetVolumeReplicationInfo is not implemented: cannot probe " + target);
                return;
            case OK:
                ctx.fail(target + " has replication enabled (GetVolumeReplicationInfo -> 0 OK): fixtures must start"
                        + " with replication disabled");
                return;
            case NOT_FOUND:
                ctx.fail(target + " does not exist (GetVolumeReplicationInfo -> " + info.describe() + ")");
                return;
            default:
                ctx.fail("probing " + target + ": GetVolumeReplicationInfo -> " + info.describe()
                        + "; expected 9 FAILED_PRECONDITION for a source with replication disabled");
        }
    }

    // ---------------------------------------------------------------- per RPC

    /** Puts {@code target} (replication disabled) in the state where {@code rpc} with valid secrets succeeds. */
    static void prepare(ConformanceContext ctx, Rpc rpc, Addressing target) {
        if (rpc == Rpc.ENABLE_VOLUME_REPLICATION) {
            return;
        }
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, target);
        if (rpc == Rpc.DISABLE_VOLUME_REPLICATION) {
            return;
        }
        if (rpc == Rpc.PROMOTE_VOLUME) {
            return;
        }
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        if (rpc == Rpc.RESYNC_VOLUME) {
            ctx.step(Rpc.DEMOTE_VOLUME, target);
        }
    }

    private static List<Check> rpcChecks(Rpc rpc) {
        List<Check> checks = new ArrayList<>();
        StatusCode invalid = StatusCode.INVALID_ARGUMENT;
        for (Addressing malformed : List.of(Addressing.none(), Addressing.sourceWithoutType(),
                Addressing.emptyVolumeId())) {
            checks.add(Check.required(rowCase(rpc, invalid, malformed.label()),
                    ctx -> ctx.expect(ctx.call(rpc, malformed), invalid)));
        }
        checks.add(Check.required(rowCase(rpc, invalid, Addressing.emptyVolumeGroupId().label()), ctx -> {
            ctx.volumeGroup();
            ctx.expect(ctx.call(rpc, Addressing.emptyVolumeGroupId()), invalid);
        }));
        checks.add(Check.required(rowCase(rpc, StatusCode.NOT_FOUND, "volume " + MISSING_VOLUME),
                ctx -> ctx.expect(ctx.call(rpc, Addressing.volume(MISSING_VOLUME)), StatusCode.NOT_FOUND)));
        checks.add(Check.required(rowCase(rpc, StatusCode.NOT_FOUND, "volume group " + MISSING_GROUP), ctx -> {
            ctx.volumeGroup();
            ctx.expect(ctx.call(rpc, Addressing.volumeGroup(MISSING_GROUP)), StatusCode.NOT_FOUND);
        }));
        checks.addAll(preconditionChecks(rpc));
        checks.add(Check.required(rowCase(rpc, StatusCode.UNAUTHENTICATED, "wrong secrets"), ctx -> {
            Map<String, String> wrong = new java.util.LinkedHashMap<>();
            ctx.requireSecrets().keys().forEach(k -> wrong.put(k, "volrep-conformance-wrong-secret"));
            Addressing vol = ctx.volume();
            prepare(ctx, rpc, vol);
            ctx.expect(ctx.call(rpc, vol, wrong), StatusCode.UNAUTHENTICATED, rpc + " with wrong secret values");
        }));
        checks.add(Check.required(rowCase(rpc, StatusCode.UNAUTHENTICATED, "missing secrets"), ctx -> {
            ctx.requireSecrets();
            Addressing vol = ctx.volume();
            prepare(ctx, rpc, vol);
            ctx.expect(ctx.call(rpc, vol, Map.of()), StatusCode.UNAUTHENTICATED, rpc + " without secrets");
        }));
        checks.add(Check.required(idempotent(rpc), ctx -> {
            Addressing vol = ctx.volume();
            prepare(ctx, rpc, vol);
            Outcome first = ctx.step(rpc, vol);
            Outcome second = ctx.call(rpc, vol);
            if (second.code() != first.code()) {
                ctx.fail("not idempotent: " + rpc + " on " + vol + " answered " + first.describe()
                        + ", the same call repeated answered " + second.describe());
            }
        }));
        checks.add(Check.optional(rowCase(rpc, StatusCode.ABORTED,
                SIMULTANEOUS_CALLS + " simultaneous calls answer only 0 OK or 10 ABORTED"), ctx -> {
            Addressing vol = ctx.volume();
            prepare(ctx, rpc, vol);
            List<Outcome> outcomes = ctx.callSimultaneously(rpc, vol, SIMULTANEOUS_CALLS);
            long ok = outcomes.stream().filter(Outcome::ok).count();
            for (Outcome o : outcomes) {
                if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(rpc, StatusCode.UNIMPLEMENTED)) {
                    ctx.notImplemented(rpc);
                }
                if (!o.ok() && o.code() != StatusCode.ABORTED) {
                    ctx.fail(SIMULTANEOUS_CALLS + " simultaneous " + rpc + " calls on " + vol + ": one answered "
                            + o.describe() + "; only 0 OK and 10 ABORTED are allowed");
                }
            }
            if (ok == 0) {
                ctx.fail(SIMULTANEOUS_CALLS + " simultaneous " + rpc + " calls on " + vol
                        + ": all answered 10 ABORTED; at least one should be served");
            }
        }));
        return checks;
    }

    private static List<Check> preconditionChecks(Rpc rpc) {
        StatusCode fp = StatusCode.FAILED_PRECONDITION;
        List<Check> checks = new ArrayList<>();
        switch (rpc) {
            case PROMOTE_VOLUME, DEMOTE_VOLUME, RESYNC_VOLUME, GET_VOLUME_REPLICATION_INFO -> {
                checks.add(Check.required(rowCase(rpc, fp, "replication disabled"),
                        ctx -> ctx.expect(ctx.call(rpc, ctx.volume()), fp, rpc + " on a volume with replication disabled")));
                checks.add(Check.required(rowCase(rpc, fp, "volume group, replication disabled"), ctx -> {
                    Addressing group = ctx.volumeGroup();
                    ctx.expect(ctx.call(rpc, group), fp, rpc + " on a group with replication disabled");
                }));
            }
            default -> { }
        }
        if (rpc == Rpc.RESYNC_VOLUME) {
            checks.add(Check.required(rowCase(rpc, fp, "replication enabled, primary: not demoted"), ctx -> {
                Addressing vol = ctx.volume();
                ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
                ctx.step(Rpc.PROMOTE_VOLUME, vol);
                ctx.expect(ctx.call(rpc, vol), fp, "ResyncVolume on a primary (not demoted) volume");
            }));
        }
        if (rpc == Rpc.GET_VOLUME_REPLICATION_INFO) {
            checks.add(Check.required(rowCase(rpc, fp, "replication enabled, demoted: not promoted"), ctx -> {
                Addressing vol = ctx.volume();
                ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
                ctx.step(Rpc.PROMOTE_VOLUME, vol);
                ctx.step(Rpc.DEMOTE_VOLUME, vol);
                ctx.expect(ctx.call(rpc, vol), fp, "GetVolumeReplicationInfo on a demoted volume");
            }));
        }
        return checks;
    }

    // ---------------------------------------------------------------- lifecycle

    private static List<Check> lifecycle(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        for (String id : config.volumes()) {
            checks.add(Check.required(LIFECYCLE + " [volume " + id + "]", ctx -> runLifecycle(ctx, Addressing.volume(id))));
        }
        if (config.volumeGroups().isEmpty()) {
            checks.add(Check.required(LIFECYCLE + " [volume group]", ctx -> ctx.volumeGroup()));
        }
        for (String id : config.volumeGroups()) {
            checks.add(Check.required(LIFECYCLE + " [volume group " + id + "]",
                    ctx -> runLifecycle(ctx, Addressing.volumeGroup(id))));
        }
        return checks;
    }

    static void runLifecycle(ConformanceContext ctx, Addressing target) {
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, target);
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        ctx.step(Rpc.DEMOTE_VOLUME, target);
        resyncUntilReady(ctx, target);
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, target);
    }

    /** Calls ResyncVolume until it answers {@code ready = true}; fails after the configured resync timeout. */
    static void resyncUntilReady(ConformanceContext ctx, Addressing target) {
        Duration timeout = ctx.resyncTimeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 5;
        int calls = 0;
        while (true) {
            Outcome resync = ctx.step(Rpc.RESYNC_VOLUME, target);
            calls++;
            if (((ResyncVolumeResponse) resync.response()).getReady()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                ctx.fail("ResyncVolume on " + target + " did not answer ready = true within " + timeout + " ("
                        + calls + " calls); raise --resync-timeout if the storage needs longer");
            }
            ctx.sleep(Math.min(pause, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            pause = Math.min(pause * 2, 500);
        }
    }

    // ---------------------------------------------------------------- responses

    private static GetVolumeReplicationInfoResponse primaryInfo(ConformanceContext ctx) {
        Addressing vol = ctx.volume();
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
        ctx.step(Rpc.PROMOTE_VOLUME, vol);
        return (GetVolumeReplicationInfoResponse) ctx.step(Rpc.GET_VOLUME_REPLICATION_INFO, vol).response();
    }

    private static List<Check> responseValidity() {
        return List.of(
                Check.required(LAST_SYNC_TIME, ctx -> {
                    GetVolumeReplicationInfoResponse info = primaryInfo(ctx);
                    if (!info.hasLastSyncTime()) {
                        ctx.fail("GetVolumeReplicationInfo answered without last_sync_time: " + info);
                    }
                    int nanos = info.getLastSyncTime().getNanos();
                    if (nanos < 0 || nanos > 999_999_999) {
                        ctx.fail("last_sync_time is not a valid Timestamp (nanos " + nanos + ")");
                    }
                }),
                Check.required(LAST_SYNC_BYTES, ctx -> {
                    long bytes = primaryInfo(ctx).getLastSyncBytes();
                    if (bytes < 0) {
                        ctx.fail("GetVolumeReplicationInfo answered last_sync_bytes = " + bytes);
                    }
                }),
                Check.optional(LAST_SYNC_DURATION, ctx -> {
                    GetVolumeReplicationInfoResponse info = primaryInfo(ctx);
                    if (info.hasLastSyncDuration() && (info.getLastSyncDuration().getSeconds() < 0
                            || info.getLastSyncDuration().getNanos() < 0)) {
                        ctx.fail("GetVolumeReplicationInfo answered a negative last_sync_duration: "
                                + info.getLastSyncDuration());
                    }
                }),
                Check.required(RESYNC_READY, ctx -> {
                    Addressing vol = ctx.volume();
                    ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
                    ctx.step(Rpc.PROMOTE_VOLUME, vol);
                    ctx.step(Rpc.DEMOTE_VOLUME, vol);
                    resyncUntilReady(ctx, vol);
                }));
    }

    // ---------------------------------------------------------------- request forms

    private static void everyRpc(ConformanceContext ctx, Addressing target) {
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, target);
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        ctx.step(Rpc.GET_VOLUME_REPLICATION_INFO, target);
        ctx.step(Rpc.DEMOTE_VOLUME, target);
        ctx.step(Rpc.RESYNC_VOLUME, target);
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, target);
    }

    private static List<Check> requestForms() {
        return List.of(
                Check.required(FORM_SOURCE, ctx -> everyRpc(ctx, ctx.volume())),
                Check.optional(FORM_DEPRECATED,
                        ctx -> everyRpc(ctx, Addressing.deprecatedVolumeId(ctx.config().volumes().get(0)))));
    }
}

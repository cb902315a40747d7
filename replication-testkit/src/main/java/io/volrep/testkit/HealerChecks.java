package io.volrep.testkit;

import io.volrep.api.CsiLimits;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.csi.VolumeCapability.AccessMode;
import io.volrep.proto.csi.VolumeCapability.AccessMode.Mode;
import io.volrep.proto.csi.VolumeCapability.BlockVolume;
import io.volrep.proto.csi.VolumeCapability.MountVolume;
import io.volrep.proto.healer.NodeHealerRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The NodeHealer checks (seed 002), against {@link ConformanceContext#healerChannel()}: every row of its table a
 * client can provoke (missing {@code volume_id} or {@code volume_path}, a relative {@code staging_target_path}, a
 * nonexistent volume, simultaneous calls, wrong and missing secrets; 12 is "not implemented", 2 UNKNOWN is provoked
 * by nothing), the REQUIRED message, and every input a node plugin must take: a block and a mount
 * {@code volume_capability}, the volume's context, and absolute {@code volume_path} and
 * {@code staging_target_path} from over 128 bytes (MUST) up to the OS limit (SHOULD). They need a node volume
 * ({@link ConformanceConfig#healerVolumes()}) and are skipped without one; the block, staging and context checks
 * need theirs too. A plugin answering 12 UNIMPLEMENTED (the healer is a separate, optional service) gets "not
 * implemented" on every check, never a pass.
 */
final class HealerChecks {
    static final String GROUP = "NodeHealer";
    /** How every id of the group begins: {@code NodeHealer/<subject>/<condition>}. */
    private static final String ID = GROUP + "/";

    static final String MISSING_VOLUME = ControllerChecks.MISSING_VOLUME;
    static final String MESSAGE_REQUIRED = "NodeHealer: message is REQUIRED in every answer";
    static final String PATH_128 = "NodeHealer: a volume_path of 128+ bytes is accepted (MUST: at least 128)";
    /** Linux's PATH_MAX less its terminating NUL: the longest path the node's system calls take. */
    static final int OS_PATH_BYTES = 4095;

    static final String PATH_OS_LIMIT = "NodeHealer: a volume_path of " + OS_PATH_BYTES + " bytes (Linux's PATH_MAX)"
            + " is accepted (SHOULD: the OS maximum)";
    static final String MOUNT_CAPABILITY = "NodeHealer: a mount volume_capability is accepted";
    static final String BLOCK_CAPABILITY = "NodeHealer: a block volume_capability is accepted [block volume]";
    static final String STAGING_128 =
            "NodeHealer: an absolute staging_target_path of 128+ bytes is accepted (MUST:" + " at least 128)";
    static final String STAGING_OS_LIMIT = "NodeHealer: an absolute staging_target_path of " + OS_PATH_BYTES
            + " bytes (Linux's PATH_MAX) is accepted (SHOULD: the OS maximum)";
    static final String VOLUME_CONTEXT = "NodeHealer: the volume's volume_context is accepted";
    static final int SIMULTANEOUS_CALLS = ControllerChecks.SIMULTANEOUS_CALLS;

    private HealerChecks() {}

    static String rowCase(StatusCode code, String variant) {
        return ControllerChecks.rowCase(Rpc.NODE_HEALER, code, variant);
    }

    static CheckGroup group() {
        return CheckGroup.of(GROUP, config -> checks());
    }

    /** The first configured node volume; skips the check when there is none. */
    private static Map.Entry<String, String> volume(ConformanceContext ctx) {
        if (ctx.config().healerVolumes().isEmpty()) {
            ctx.skip("no node volumes configured (--healer-volume ID=PATH): NodeHealer is not checked");
        }
        return ctx.config().healerVolumes().entrySet().iterator().next();
    }

    /** A valid request for the first node volume, with the configured secrets. */
    private static NodeHealerRequest.Builder valid(ConformanceContext ctx) {
        Map.Entry<String, String> volume = volume(ctx);
        return NodeHealerRequest.newBuilder()
                .setVolumeId(volume.getKey())
                .setVolumePath(volume.getValue())
                .putAllSecrets(ctx.config().secrets().asMap());
    }

    /** Fails unless the answer has {@code expected}; UNIMPLEMENTED means "not implemented". */
    private static Outcome expect(ConformanceContext ctx, NodeHealerRequest request, StatusCode expected, String what) {
        Outcome outcome = ctx.heal(request);
        ctx.expect(outcome, expected, what);
        return outcome;
    }

    /**
     * The same directory's path made exactly {@code bytes} long in UTF-8 (or left as is when longer): "/." segments
     * and, to land on the length, a trailing "/" resolve to the same directory, so a plugin that stats it finds it.
     */
    static String longPath(String path, int bytes) {
        StringBuilder b = new StringBuilder(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
        int length = CsiLimits.utf8Length(b.toString());
        while (length <= bytes - 2) {
            b.append("/.");
            length += 2;
        }
        if (length == bytes - 1) {
            b.append('/');
        }
        return b.toString();
    }

    /** The first node volume's staging path; skips the check when none is configured. */
    private static String stagingPath(ConformanceContext ctx) {
        volume(ctx);
        return ctx.config().healerStagingPath().orElseGet(() -> {
            ctx.skip("no staging path configured (--healer-staging-path PATH): staging_target_path is not checked");
            return null;
        });
    }

    /** A mount capability as a CO sends it for a mounted volume: the access type and a single-node writer. */
    static VolumeCapability mount() {
        return VolumeCapability.newBuilder()
                .setMount(MountVolume.getDefaultInstance())
                .setAccessMode(AccessMode.newBuilder().setMode(Mode.SINGLE_NODE_WRITER))
                .build();
    }

    /** A block capability as a CO sends it for a raw block volume. */
    static VolumeCapability block() {
        return mount().toBuilder().setBlock(BlockVolume.getDefaultInstance()).build();
    }

    /** Answers only 0 OK or 10 ABORTED to simultaneous calls on one volume, and serves at least one (the 10 row). */
    private static void simultaneous(ConformanceContext ctx) throws InterruptedException {
        NodeHealerRequest request = valid(ctx).build();
        List<Future<Outcome>> answers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(SIMULTANEOUS_CALLS);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int i = 0; i < SIMULTANEOUS_CALLS; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return ctx.heal(request);
                }));
            }
            start.countDown();
            long served = 0;
            for (Future<Outcome> answer : answers) {
                Outcome o;
                try {
                    o = answer.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
                if (o.code() == StatusCode.UNIMPLEMENTED) {
                    ctx.notImplemented(Rpc.NODE_HEALER);
                }
                if (!o.ok() && o.code() != StatusCode.ABORTED) {
                    ctx.fail(SIMULTANEOUS_CALLS + " simultaneous NodeHealer calls for node volume "
                            + request.getVolumeId() + ": one answered " + o.describe()
                            + "; only 0 OK and 10 ABORTED are allowed");
                }
                served += o.ok() ? 1 : 0;
            }
            if (served == 0) {
                ctx.fail(SIMULTANEOUS_CALLS + " simultaneous NodeHealer calls for node volume " + request.getVolumeId()
                        + ": all answered 10 ABORTED; at least one should be served");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The answer's rules ({@link ResponseRules}): the message REQUIRED, also for a normal volume. */
    private static void expectMessage(ConformanceContext ctx, Outcome outcome) {
        ResponseRules.requireValid(ctx, Rpc.NODE_HEALER, outcome.response());
    }

    static List<Check> checks() {
        StatusCode invalid = StatusCode.INVALID_ARGUMENT;
        List<Check> checks = new ArrayList<>();
        checks.add(Check.required(
                        rowCase(invalid, "volume_id missing"),
                        ctx -> expect(ctx, valid(ctx).clearVolumeId().build(), invalid, "NodeHealer without volume_id"))
                .withId(ID + "request/no-volume-id"));
        checks.add(Check.required(
                        rowCase(invalid, "volume_path missing"),
                        ctx -> expect(
                                ctx, valid(ctx).clearVolumePath().build(), invalid, "NodeHealer without volume_path"))
                .withId(ID + "request/no-volume-path"));
        checks.add(Check.required(
                        rowCase(invalid, "staging_target_path relative"),
                        ctx -> expect(
                                ctx,
                                valid(ctx)
                                        .setStagingTargetPath("relative/staging/path")
                                        .build(),
                                invalid,
                                "NodeHealer with a relative staging_target_path"))
                .withId(ID + "request/relative-staging-path"));
        int overId = CsiLimits.MAX_STRING_BYTES + 1;
        // Optional: the healer spec inherits CSI's 128-byte limit on ids without restating it.
        checks.add(Check.optional(
                        rowCase(invalid, ControllerChecks.ID_OVER_LIMIT),
                        ctx -> expect(
                                ctx,
                                valid(ctx)
                                        .setVolumeId(ControllerChecks.bytes("volrep-conformance-", overId))
                                        .build(),
                                invalid,
                                "NodeHealer with a volume_id of " + overId + " bytes (CSI: at most "
                                        + CsiLimits.MAX_STRING_BYTES + ")"))
                .withId(ID + "volume/id-over-limit"));
        checks.add(Check.required(
                        rowCase(StatusCode.NOT_FOUND, "volume " + MISSING_VOLUME),
                        ctx -> expect(
                                ctx,
                                valid(ctx).setVolumeId(MISSING_VOLUME).build(),
                                StatusCode.NOT_FOUND,
                                "NodeHealer for a volume that does not exist"))
                .withId(ID + "volume/not-found"));
        checks.add(Check.required(rowCase(StatusCode.UNAUTHENTICATED, "wrong secrets"), ctx -> {
                    Map<String, String> wrong = new LinkedHashMap<>();
                    ctx.requireSecrets().keys().forEach(k -> wrong.put(k, LifecycleChecks.WRONG_SECRET));
                    expect(
                            ctx,
                            valid(ctx).clearSecrets().putAllSecrets(wrong).build(),
                            StatusCode.UNAUTHENTICATED,
                            "NodeHealer with wrong secret values");
                })
                .withId(ID + "volume/auth-wrong"));
        checks.add(Check.required(rowCase(StatusCode.UNAUTHENTICATED, "missing secrets"), ctx -> {
                    ctx.requireSecrets();
                    expect(
                            ctx,
                            valid(ctx).clearSecrets().build(),
                            StatusCode.UNAUTHENTICATED,
                            "NodeHealer without secrets");
                })
                .withId(ID + "volume/auth-missing"));
        checks.add(Check.required(
                        MESSAGE_REQUIRED,
                        ctx -> expectMessage(
                                ctx,
                                expect(
                                        ctx,
                                        valid(ctx).build(),
                                        StatusCode.OK,
                                        "NodeHealer for node volume " + volume(ctx))))
                .withId(ID + "volume/message-required"));
        checks.add(Check.required(PATH_128, ctx -> {
                    NodeHealerRequest.Builder b = valid(ctx);
                    expectMessage(
                            ctx,
                            expect(
                                    ctx,
                                    b.setVolumePath(longPath(b.getVolumePath(), 129))
                                            .build(),
                                    StatusCode.OK,
                                    "NodeHealer with a 129-byte volume_path naming the node volume's directory"));
                })
                .withId(ID + "volume/path-over-128-bytes"));
        checks.add(Check.optional(PATH_OS_LIMIT, ctx -> {
                    NodeHealerRequest.Builder b = valid(ctx);
                    expectMessage(
                            ctx,
                            expect(
                                    ctx,
                                    b.setVolumePath(longPath(b.getVolumePath(), OS_PATH_BYTES))
                                            .build(),
                                    StatusCode.OK,
                                    "NodeHealer with a " + OS_PATH_BYTES + "-byte volume_path naming the node volume's"
                                            + " directory"));
                })
                .withId(ID + "volume/path-os-limit"));
        checks.add(Check.required(
                        MOUNT_CAPABILITY,
                        ctx -> expectMessage(
                                ctx,
                                expect(
                                        ctx,
                                        valid(ctx).setVolumeCapability(mount()).build(),
                                        StatusCode.OK,
                                        "NodeHealer with a mount volume_capability (SINGLE_NODE_WRITER) for node volume "
                                                + volume(ctx).getKey())))
                .withId(ID + "volume/mount-capability")
                .withHint("volume_capability is OPTIONAL: a plugin must accept it, and MAY skip filesystem work for a"
                        + " block volume"));
        checks.add(Check.required(BLOCK_CAPABILITY, ctx -> {
                    volume(ctx);
                    if (ctx.config().healerBlockVolumes().isEmpty()) {
                        ctx.skip(
                                "no block volume configured (--healer-block-volume ID=PATH): a block volume_capability is"
                                        + " not checked");
                    }
                    Map.Entry<String, String> blockVolume = ctx.config()
                            .healerBlockVolumes()
                            .entrySet()
                            .iterator()
                            .next();
                    expectMessage(
                            ctx,
                            expect(
                                    ctx,
                                    valid(ctx)
                                            .setVolumeId(blockVolume.getKey())
                                            .setVolumePath(blockVolume.getValue())
                                            .setVolumeCapability(block())
                                            .build(),
                                    StatusCode.OK,
                                    "NodeHealer with a block volume_capability for block volume "
                                            + blockVolume.getKey()));
                })
                .withId(ID + "volume/block-capability")
                .withHint("a raw block volume's volume_path is its device file: no filesystem to check there"));
        checks.add(Check.required(STAGING_128, ctx -> {
                    String staging = stagingPath(ctx);
                    expectMessage(
                            ctx,
                            expect(
                                    ctx,
                                    valid(ctx)
                                            .setStagingTargetPath(longPath(staging, 129))
                                            .build(),
                                    StatusCode.OK,
                                    "NodeHealer with a 129-byte staging_target_path naming the volume's staging"
                                            + " directory"));
                })
                .withId(ID + "volume/staging-path-over-128-bytes")
                .withHint("staging_target_path overrides CSI's 128-byte limit: accept at least 128 bytes, better the"
                        + " OS maximum"));
        checks.add(Check.optional(STAGING_OS_LIMIT, ctx -> {
                    String staging = stagingPath(ctx);
                    expectMessage(
                            ctx,
                            expect(
                                    ctx,
                                    valid(ctx)
                                            .setStagingTargetPath(longPath(staging, OS_PATH_BYTES))
                                            .build(),
                                    StatusCode.OK,
                                    "NodeHealer with a " + OS_PATH_BYTES + "-byte staging_target_path"
                                            + " naming the volume's staging directory"));
                })
                .withId(ID + "volume/staging-path-os-limit"));
        checks.add(Check.required(VOLUME_CONTEXT, ctx -> {
                    volume(ctx);
                    if (ctx.config().healerVolumeContext().isEmpty()) {
                        ctx.skip(
                                "no volume context configured (--healer-volume-context K=V): volume_context is not checked");
                    }
                    expectMessage(
                            ctx,
                            expect(
                                    ctx,
                                    valid(ctx)
                                            .putAllVolumeContext(ctx.config().healerVolumeContext())
                                            .build(),
                                    StatusCode.OK,
                                    "NodeHealer with the volume's volume_context"));
                })
                .withId(ID + "volume/volume-context"));
        checks.add(Check.optional(
                        rowCase(
                                StatusCode.ABORTED,
                                SIMULTANEOUS_CALLS + " simultaneous calls answer only 0 OK or 10 ABORTED"),
                        HealerChecks::simultaneous)
                .withId(ID + "volume/simultaneous-calls"));
        return checks;
    }
}

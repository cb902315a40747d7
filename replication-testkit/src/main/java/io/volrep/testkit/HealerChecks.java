package io.volrep.testkit;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The NodeHealer checks (seed 002), against {@link ConformanceContext#healerChannel()}: its error rows (missing
 * {@code volume_id} or {@code volume_path}, a relative {@code staging_target_path}, a nonexistent volume, wrong
 * and missing secrets), the REQUIRED message, and long paths. They need a node volume
 * ({@link ConformanceConfig#healerVolumes()}) and are skipped without one. A plugin answering 12 UNIMPLEMENTED
 * (the healer is a separate, optional service) gets "not implemented" on every check, never a pass.
 */
final class HealerChecks {
    static final String GROUP = "NodeHealer";
    /** How every id of the group begins: {@code NodeHealer/<subject>/<condition>}. */
    private static final String ID = GROUP + "/";
    static final String MISSING_VOLUME = ControllerChecks.MISSING_VOLUME;
    static final String MESSAGE_REQUIRED = "NodeHealer: message is REQUIRED in every answer";
    static final String PATH_128 = "NodeHealer: a volume_path of 128+ bytes is accepted (MUST: at least 128)";
    static final String PATH_1024 = "NodeHealer: a volume_path of 1024+ bytes is accepted (SHOULD: the OS maximum)";

    private HealerChecks() {
    }

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
        return NodeHealerRequest.newBuilder().setVolumeId(volume.getKey()).setVolumePath(volume.getValue())
                .putAllSecrets(ctx.config().secrets().asMap());
    }

    /** Fails unless the answer has {@code expected}; UNIMPLEMENTED means "not implemented". */
    private static Outcome expect(ConformanceContext ctx, NodeHealerRequest request, StatusCode expected, String what) {
        Outcome outcome = ctx.heal(request);
        ctx.expect(outcome, expected, what);
        return outcome;
    }

    /** The same path, {@code bytes} long or longer, naming the same directory: "/." segments resolve to it. */
    static String longPath(String path, int bytes) {
        StringBuilder b = new StringBuilder(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
        while (b.length() < bytes) {
            b.append("/.");
        }
        return b.toString();
    }

    private static void expectMessage(ConformanceContext ctx, Outcome outcome) {
        NodeHealerResponse response = (NodeHealerResponse) outcome.response();
        if (response.getMessage().isBlank()) {
            ctx.fail("NodeHealer answered " + (response.getAbnormal() ? "abnormal" : "normal")
                    + " without the REQUIRED message");
        }
    }

    static List<Check> checks() {
        StatusCode invalid = StatusCode.INVALID_ARGUMENT;
        List<Check> checks = new ArrayList<>();
        checks.add(Check.required(rowCase(invalid, "volume_id missing"), ctx ->
                expect(ctx, valid(ctx).clearVolumeId().build(), invalid, "NodeHealer without volume_id"))
                .withId(ID + "request/no-volume-id"));
        checks.add(Check.required(rowCase(invalid, "volume_path missing"), ctx ->
                expect(ctx, valid(ctx).clearVolumePath().build(), invalid, "NodeHealer without volume_path"))
                .withId(ID + "request/no-volume-path"));
        checks.add(Check.required(rowCase(invalid, "staging_target_path relative"), ctx ->
                expect(ctx, valid(ctx).setStagingTargetPath("relative/staging/path").build(), invalid,
                        "NodeHealer with a relative staging_target_path"))
                .withId(ID + "request/relative-staging-path"));
        int overId = io.volrep.api.CsiLimits.MAX_STRING_BYTES + 1;
        // Optional: the healer spec inherits CSI's 128-byte limit on ids without restating it.
        checks.add(Check.optional(rowCase(invalid, ControllerChecks.ID_OVER_LIMIT), ctx ->
                expect(ctx, valid(ctx).setVolumeId(ControllerChecks.bytes("volrep-conformance-", overId)).build(),
                        invalid, "NodeHealer with a volume_id of " + overId + " bytes (CSI: at most "
                                + io.volrep.api.CsiLimits.MAX_STRING_BYTES + ")"))
                .withId(ID + "volume/id-over-limit"));
        checks.add(Check.required(rowCase(StatusCode.NOT_FOUND, "volume " + MISSING_VOLUME), ctx ->
                expect(ctx, valid(ctx).setVolumeId(MISSING_VOLUME).build(), StatusCode.NOT_FOUND,
                        "NodeHealer for a volume that does not exist"))
                .withId(ID + "volume/not-found"));
        checks.add(Check.required(rowCase(StatusCode.UNAUTHENTICATED, "wrong secrets"), ctx -> {
            Map<String, String> wrong = new LinkedHashMap<>();
            ctx.requireSecrets().keys().forEach(k -> wrong.put(k, "volrep-conformance-wrong-secret"));
            expect(ctx, valid(ctx).clearSecrets().putAllSecrets(wrong).build(), StatusCode.UNAUTHENTICATED,
                    "NodeHealer with wrong secret values");
        }).withId(ID + "volume/auth-wrong"));
        checks.add(Check.required(rowCase(StatusCode.UNAUTHENTICATED, "missing secrets"), ctx -> {
            ctx.requireSecrets();
            expect(ctx, valid(ctx).clearSecrets().build(), StatusCode.UNAUTHENTICATED, "NodeHealer without secrets");
        }).withId(ID + "volume/auth-missing"));
        checks.add(Check.required(MESSAGE_REQUIRED, ctx -> expectMessage(ctx,
                expect(ctx, valid(ctx).build(), StatusCode.OK, "NodeHealer for node volume " + volume(ctx))))
                .withId(ID + "volume/message-required"));
        checks.add(Check.required(PATH_128, ctx -> {
            NodeHealerRequest.Builder b = valid(ctx);
            expectMessage(ctx, expect(ctx, b.setVolumePath(longPath(b.getVolumePath(), 129)).build(), StatusCode.OK,
                    "NodeHealer with a 129-byte volume_path naming the node volume's directory"));
        }).withId(ID + "volume/path-over-128-bytes"));
        checks.add(Check.optional(PATH_1024, ctx -> {
            NodeHealerRequest.Builder b = valid(ctx);
            expectMessage(ctx, expect(ctx, b.setVolumePath(longPath(b.getVolumePath(), 1025)).build(), StatusCode.OK,
                    "NodeHealer with a 1025-byte volume_path naming the node volume's directory"));
        }).withId(ID + "volume/path-over-1024-bytes"));
        return checks;
    }
}

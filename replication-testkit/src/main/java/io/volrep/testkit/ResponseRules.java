package io.volrep.testkit;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.internal.wire.AnswerProblem;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.Transcoder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The kit's side of the spec's answer rules: {@link AnswerRules}, the one copy that volrep's client and the SPI
 * runtime apply too, so that an answer the client rejects fails the kit, and the reverse. Every OK answer the
 * lifecycle walk sees is judged by all of them (every source kind, every state); the named response-validity checks
 * each judge the fields their names speak of. Answers of an older revision are judged in the current revision's form.
 *
 * <pre>{@code
 * ResponseRules.requireValid(ctx, outcome, target, "last_sync_time");   // only that field's rules
 * }</pre>
 */
final class ResponseRules {
    private ResponseRules() {}

    /** The kind of source a call on {@code target} named. */
    static ReplicationSource.Kind kindOf(Addressing target) {
        return target.isGroup() ? ReplicationSource.Kind.VOLUME_GROUP : ReplicationSource.Kind.VOLUME;
    }

    /**
     * Fails the check when the OK answer {@code outcome} to a call on {@code target} breaks a rule: any rule, or with
     * {@code fields}, a rule of one of these fields (or of a field inside one, {@code last_sync_time.seconds}).
     */
    static void requireValid(ConformanceContext ctx, Outcome outcome, Addressing target, String... fields) {
        Message answer = outcome.rpc().isReplication()
                ? Transcoder.of(ctx.dialect()).responseFromWire(outcome.rpc(), outcome.response())
                : outcome.response();
        judge(ctx, outcome.rpc(), AnswerRules.of(outcome.rpc(), answer, kindOf(target)), fields);
    }

    /** Fails the check when {@code answer}, an answer of {@code rpc} that names no source (NodeHealer, Identity), breaks a rule. */
    static void requireValid(ConformanceContext ctx, Rpc rpc, Message answer) {
        requireValid(ctx, rpc, answer, AnswerRules.Asked.nothing());
    }

    /** Fails the check when {@code answer}, an answer of {@code rpc} to a call that asked {@code asked}, breaks a rule. */
    static void requireValid(ConformanceContext ctx, Rpc rpc, Message answer, AnswerRules.Asked asked) {
        judge(ctx, rpc, AnswerRules.of(rpc, answer, asked));
    }

    /**
     * The named response-validity checks that judge the rules {@code outcome} (an OK answer on {@code target}) breaks:
     * a walk or a step that meets a broken rule is that check's consequence, when it failed (one defect, one FAIL).
     * Empty when the answer breaks no rule a named check judges.
     */
    static List<String> namedChecksOfBrokenRules(ConformanceContext ctx, Outcome outcome, Addressing target) {
        if (!outcome.ok() || !outcome.rpc().isReplication()) {
            return List.of();
        }
        Message answer = Transcoder.of(ctx.dialect()).responseFromWire(outcome.rpc(), outcome.response());
        List<String> ids = new ArrayList<>();
        for (AnswerProblem p : AnswerRules.of(outcome.rpc(), answer, kindOf(target))) {
            String id = namedCheckOf(outcome.rpc(), p.field(), target);
            if (id != null && !ids.contains(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    /** The named check that judges {@code field} of {@code rpc}'s answer, or null when none does. */
    private static String namedCheckOf(Rpc rpc, String field, Addressing target) {
        if (rpc == Rpc.GET_REPLICATION_DESTINATION_INFO) {
            return "response-validity/" + (target.isGroup() ? "group" : "volume") + "/destination";
        }
        if (rpc != Rpc.GET_VOLUME_REPLICATION_INFO) {
            return null;
        }
        for (String[] named : new String[][] {
            {"last_sync_time", "last-sync-time"},
            {"last_sync_bytes", "last-sync-bytes"},
            {"last_sync_duration", "last-sync-duration"},
            {"status", "health-status"}
        }) {
            if (field.equals(named[0]) || field.startsWith(named[0] + ".")) {
                return "response-validity/volume/" + named[1];
            }
        }
        return null;
    }

    private static void judge(ConformanceContext ctx, Rpc rpc, List<AnswerProblem> all, String... fields) {
        List<AnswerProblem> problems = all.stream()
                .filter(p -> fields.length == 0
                        || Arrays.stream(fields)
                                .anyMatch(f -> p.field().equals(f) || p.field().startsWith(f + ".")))
                .toList();
        if (!problems.isEmpty()) {
            ctx.fail(rpc.methodName() + " answered against the spec: " + AnswerProblem.describe(problems));
        }
    }
}

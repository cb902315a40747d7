package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MapEntry;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * Watches every answer of a run for the secrets of its request: a plugin whose error details or answers repeat them
 * lets them leave the plugin (into orchestrators' logs and events). The kit masks them in its reports all the same;
 * the echo itself fails a required check. A value counts when it is one the kit sent (the configured ones of at least
 * {@value #MIN_LENGTH} characters, so that a short value that is also a word does not count, and the kit's own wrong
 * secret). Thread-safe.
 */
final class EchoWatch {
    /** Shorter configured values are not looked for: "admin" may be a word of a plugin's message. */
    static final int MIN_LENGTH = 8;

    private final AtomicLong answers = new AtomicLong();
    private final AtomicLong echoes = new AtomicLong();
    private final AtomicReference<String> first = new AtomicReference<>();

    /** Notes an answer to a request that carried {@code request}'s secrets; {@code safe} masks what it quotes. */
    void saw(Message request, Outcome answer, UnaryOperator<String> safe) {
        answers.incrementAndGet();
        List<String> values = secretsOf(request);
        if (values.isEmpty()) {
            return;
        }
        String text = answer.message() == null ? "" : answer.message();
        if (answer.ok() && answer.response() != null) {
            text = text + " " + TextFormat.printer().shortDebugString(answer.response());
        }
        for (String v : values) {
            if (text.contains(v)) {
                echoes.incrementAndGet();
                first.compareAndSet(null, answer.rpc().methodName() + " -> " + safe.apply(answer.describe()));
                return;
            }
        }
    }

    /** How many answers repeated a secret of their request. */
    long echoes() {
        return echoes.get();
    }

    /** How many answers were watched. */
    long answers() {
        return answers.get();
    }

    /** The first answer that repeated a secret, masked; null when none did. */
    String first() {
        return first.get();
    }

    /** The secret values of {@code request} worth looking for. */
    private static List<String> secretsOf(Message request) {
        List<String> values = new ArrayList<>();
        FieldDescriptor field = request.getDescriptorForType().findFieldByName("secrets");
        if (field == null) {
            return values;
        }
        for (Object entry : (List<?>) request.getField(field)) {
            String v = String.valueOf(((MapEntry<?, ?>) entry).getValue());
            if (v.length() >= MIN_LENGTH || v.equals(LifecycleChecks.WRONG_SECRET)) {
                values.add(v);
            }
        }
        return values;
    }
}

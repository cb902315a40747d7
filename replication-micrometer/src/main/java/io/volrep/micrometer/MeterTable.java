package io.volrep.micrometer;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * Meters registered once per combination of closed-set tags (RPC, code, source kind, ...) and reused on every call,
 * as Micrometer recommends for hot paths: a builder's {@code register} builds the meter's id and tags and looks
 * it up in the registry each time, which in-process costs more than volrep's own work per call. A slot is filled
 * by the first call that needs it; two calls racing for one slot register the same meter (registration is
 * idempotent), so either result may be kept.
 *
 * <pre>{@code
 * MeterTable<Counter> retries = new MeterTable<>(RpcTags.RPC_CODES, i -> Counter.builder(..).register(meters));
 * retries.get(RpcTags.index(rpc, code)).increment();
 * }</pre>
 *
 * @param <M> the meter type
 */
final class MeterTable<M> {
    private final AtomicReferenceArray<M> slots;
    private final IntFunction<M> register;

    /** {@code register} creates the meter of a slot index, once per index (rarely twice, see above). */
    MeterTable(int size, IntFunction<M> register) {
        this.slots = new AtomicReferenceArray<>(size);
        this.register = register;
    }

    M get(int index) {
        M meter = slots.get(index);
        if (meter == null) {
            meter = register.apply(index);
            slots.set(index, meter);
        }
        return meter;
    }
}

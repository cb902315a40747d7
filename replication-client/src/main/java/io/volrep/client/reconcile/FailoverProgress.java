package io.volrep.client.reconcile;

import io.volrep.api.ReplicationSource;
import java.util.Optional;

/**
 * One step of one source of a {@link Failover}, for a live display.
 *
 * <pre>{@code
 * listener(p -> err.println(p.source() + " -> "
 *         + p.destination().map(d -> d.source().id()).orElse("?") + ": " + p.step()))
 * }</pre>
 *
 * @param source      the source on site A
 * @param destination its destination on site B, once resolved
 * @param step        the step it entered
 * @param detail      what happened last (escaped, safe to print; empty when nothing to add)
 */
public record FailoverProgress(
        ReplicationSource source, Optional<Destination> destination, FailoverStep step, String detail) {}

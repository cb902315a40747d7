package io.volrep.spi;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.Arguments;
import java.time.Duration;
import java.util.Optional;

/**
 * One served call, as a {@link ServerObserver} sees it.
 *
 * @param rpc the RPC
 * @param code the code answered
 * @param elapsed from entering the pipeline to the answer
 * @param cause why the call answered {@code code}
 * @param rejectedField for {@link Cause#INVALID_REQUEST}: the request field the runtime named, as a path of the RPC's
 *                      request message without indexes or keys ({@code replication_source.volume.volume_id},
 *                      {@code volume_ids} for {@code volume_ids[3]}; never a value, so a closed set that a metric may
 *                      tag with); empty otherwise, and for a rejection that names no such path
 */
public record ServerCallEvent(Rpc rpc, StatusCode code, Duration elapsed, Cause cause, Optional<String> rejectedField) {
    public ServerCallEvent {
        Arguments.requireNonNull(
                "rpc", rpc, "code", code, "elapsed", elapsed, "cause", cause, "rejectedField", rejectedField);
    }

    /** Why a call answered its code. */
    public enum Cause {
        /** The driver answered. */
        OK,
        /** The runtime rejected the request before the driver saw it (INVALID_ARGUMENT naming a field). */
        INVALID_REQUEST,
        /** The per-source guard answered ABORTED: another call for the same source was in flight. */
        SOURCE_BUSY,
        /** The driver threw a {@link io.volrep.api.ReplicationException}: its code is the answer. */
        DRIVER_ERROR,
        /** The driver failed (an unexpected exception, or an invalid answer): answered UNKNOWN. */
        DRIVER_FAILURE
    }
}

package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Calls on one source finish, as their callers see them, in the order they ran: the slot's next call must not
 * finish before the previous call's caller has been told. RestartTest caught the race under load (an answer
 * handed to the next call's thread overtook the previous call's completion); a direct executor makes it certain.
 */
class SingleFlightOrderTest {

    @Test
    void aQueuedCallNeverFinishesBeforeThePreviousOneIsReported() {
        SingleFlight flight = new SingleFlight(16, Runnable::run);
        ReplicationSource source = ReplicationSource.volume("vol-0");
        List<String> reported = new CopyOnWriteArrayList<>();
        CompletableFuture<Object> first = new CompletableFuture<>();
        CompletableFuture<Object> firstResult = new CompletableFuture<>();
        CompletableFuture<Object> secondResult = new CompletableFuture<>();

        flight.submit("vol-0", source, Rpc.PROMOTE_VOLUME, firstResult, () -> first, () -> reported.add("first"));
        flight.submit(
                "vol-0",
                source,
                Rpc.DEMOTE_VOLUME,
                secondResult,
                () -> CompletableFuture.completedFuture("answer"), // the next call answers at once
                () -> reported.add("second"));
        assertThat(reported).isEmpty();

        first.complete("answer");

        assertThat(reported).containsExactly("first", "second");
        assertThat(flight.activeSources()).isZero();
    }
}

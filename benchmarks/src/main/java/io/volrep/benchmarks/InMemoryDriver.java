package io.volrep.benchmarks;

import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ReplicationDriver;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The SPI driver under the benchmarked {@code ReplicationServer}: the same behaviour as {@link InMemoryController}. */
final class InMemoryDriver implements ReplicationDriver {
    private final Map<String, Boolean> enabled = new ConcurrentHashMap<>();

    @Override
    public void enable(EnableRequest request) {
        enabled.put(request.source().id(), Boolean.TRUE);
    }

    @Override
    public void disable(DisableRequest request) {
        enabled.remove(request.source().id());
    }
}

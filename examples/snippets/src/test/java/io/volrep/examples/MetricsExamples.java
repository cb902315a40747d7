package io.volrep.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.client.ReplicationClient;
import io.volrep.micrometer.VolrepClientMetrics;
import io.volrep.micrometer.VolrepServerMetrics;
import io.volrep.spi.ReplicationServer;

/** The metrics snippets of docs/orchestrator-authors.md and docs/storage-vendors.md, compiled. */
@SuppressWarnings("unused")
final class MetricsExamples {
    ReplicationClient client(MeterRegistry meterRegistry, ObservationRegistry observationRegistry) {
        // snippet:start client-metrics
        ReplicationClient client = VolrepClientMetrics.of(
                        meterRegistry, observationRegistry) // ObservationRegistry.NOOP: no spans
                .bind(ReplicationClient.builder().target("unix:///csi/csi-addons.sock"))
                .build();
        // snippet:end client-metrics
        return client;
    }

    ReplicationServer server(MeterRegistry meterRegistry) {
        // snippet:start server-metrics
        ReplicationServer server = VolrepServerMetrics.of(meterRegistry, ObservationRegistry.NOOP)
                .bind(ReplicationServer.builder().driver(new MyDriver()).listen("unix:///csi/csi-addons.sock"))
                .build()
                .start();
        // snippet:end server-metrics
        return server;
    }
}

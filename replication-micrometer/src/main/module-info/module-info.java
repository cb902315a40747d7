/**
 * Optional Micrometer binding for the volrep client and server: meters and Observation spans.
 *
 * <pre>{@code
 * module my.orchestrator {
 *     requires io.volrep.client;
 *     requires io.volrep.micrometer;
 * }
 * }</pre>
 */
module io.volrep.micrometer {
    // Optional: an orchestrator brings the client, a plugin the SPI.
    requires static io.volrep.client;
    requires static io.volrep.spi;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    requires micrometer.commons;
    requires io.grpc;

    exports io.volrep.micrometer;
}

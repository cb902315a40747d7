package io.volrep.cli;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.volrep.micrometer.VolrepServerMetrics;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.exec.ExecDriver;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --metrics-listen HOST:PORT} of the serve commands: the served plugin's meters
 * ({@link VolrepServerMetrics}) in the Prometheus text format on {@code http://HOST:PORT/metrics}. A bare
 * {@code PORT} or {@code :PORT} listens on 127.0.0.1 only: metrics name RPCs and codes, nothing secret, but a
 * plugin's scrape endpoint is still not for every network. Only {@code /metrics} answers; a connection that has not
 * sent its request within the read timeout (10 s) is closed, and slow or idle ones never delay a scrape
 * ({@link MetricsHttpServer}).
 */
final class MetricsOptions {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    @Option(
            names = "--metrics-listen",
            paramLabel = "HOST:PORT",
            description = "Serve Prometheus metrics on http://HOST:PORT/metrics (PORT or :PORT: 127.0.0.1; "
                    + "port 0 picks one). Default: no metrics endpoint.")
    String metricsListen;

    /** How long a connection may take to send its request (tests shorten it). */
    Duration readTimeout = Duration.ofSeconds(10);

    private PrometheusMeterRegistry registry;

    /** Binds the server's meters when {@code --metrics-listen} was given. */
    ReplicationServer.Builder bind(ReplicationServer.Builder server) {
        return bind(server, null);
    }

    /** {@link #bind(ReplicationServer.Builder)}, also metering the exec bridge's driver processes (when not null). */
    ReplicationServer.Builder bind(ReplicationServer.Builder server, ExecDriver exec) {
        if (metricsListen == null) {
            return server;
        }
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        VolrepServerMetrics metrics = VolrepServerMetrics.of(registry, ObservationRegistry.NOOP);
        if (exec != null) {
            metrics.bindExec(exec);
        }
        return metrics.bind(server);
    }

    /** The registry {@link #bind} created, or null. */
    PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Starts the HTTP endpoint (after {@link #bind}); returns what stops it, a no-op without
     * {@code --metrics-listen}.
     *
     * @throws IllegalArgumentException when the address cannot be parsed
     * @throws UncheckedIOException when it cannot be bound
     */
    Endpoint start() {
        if (metricsListen == null || registry == null) {
            return new Endpoint(null, null);
        }
        InetSocketAddress address = parse(metricsListen);
        MetricsHttpServer http;
        try {
            http = MetricsHttpServer.start(address, registry::scrape, CONTENT_TYPE, readTimeout);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "--metrics-listen " + metricsListen + ": cannot listen: " + e.getMessage(), e);
        }
        return new Endpoint(http, "http://" + address.getHostString() + ":" + http.port() + MetricsHttpServer.PATH);
    }

    /** {@link #start()}, then {@code metrics on URL} on {@code err} when there is an endpoint. */
    Endpoint startAnnounced(PrintWriter err) {
        Endpoint endpoint = start();
        if (endpoint.url() != null) {
            err.println("metrics on " + endpoint.url());
            err.flush();
        }
        return endpoint;
    }

    static InetSocketAddress parse(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        String host = colon < 0 ? "" : t.substring(0, colon);
        String port = colon < 0 ? t : t.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int number;
        try {
            number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--metrics-listen " + text + ": expected HOST:PORT, e.g. 127.0.0.1:9090");
        }
        if (number < 0 || number > 65535) {
            throw new IllegalArgumentException("--metrics-listen " + text + ": port out of range");
        }
        return new InetSocketAddress(host.isEmpty() ? "127.0.0.1" : host, number);
    }

    /** The running endpoint; {@link #url()} is null when there is none. */
    record Endpoint(MetricsHttpServer http, String url) implements AutoCloseable {
        /** What stops the server: {@code stop}, then this endpoint, even when {@code stop} throws. */
        Runnable after(Runnable stop) {
            return () -> {
                try {
                    stop.run();
                } finally {
                    close();
                }
            };
        }

        @Override
        public void close() {
            if (http != null) {
                http.close();
            }
        }
    }
}

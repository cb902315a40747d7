package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnauthenticatedException;
import io.volrep.client.ReplicationClient;
import io.volrep.micrometer.VolrepClientMetrics;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code serve-reference --metrics-listen}: a scrape of the served plugin's {@code /metrics} after scripted calls
 * shows the calls by RPC and code, matching what the client's own registry counted.
 */
class MetricsEndpointTest {
    @TempDir
    Path dir;

    @Test
    void aScrapeAfterScriptedCallsShowsTheCallsByRpcAndCode() throws Exception {
        Path socket = dir.resolve("m.sock");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        VolrepCommand.class.getName(),
                        "serve-reference",
                        "--listen",
                        "unix://" + socket,
                        "--volumes",
                        "2",
                        "--groups",
                        "0",
                        "--secret",
                        "user=admin",
                        "--metrics-listen",
                        "127.0.0.1:0")
                .redirectErrorStream(true)
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String metricsUrl = null;
            boolean listening = false;
            String line;
            while ((metricsUrl == null || !listening) && (line = out.readLine()) != null) {
                if (line.startsWith("metrics on ")) {
                    metricsUrl = line.substring("metrics on ".length());
                }
                listening |= line.startsWith("listening on ");
            }
            assertThat(metricsUrl).startsWith("http://127.0.0.1:").endsWith("/metrics");
            SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
            try (ReplicationClient client = VolrepClientMetrics.of(clientMeters, ObservationRegistry.NOOP)
                    .bind(ReplicationClient.builder().target("unix://" + socket))
                    .build()) {
                Map<String, String> secrets = Map.of("user", "admin");
                client.volume("vol-0").enable().secrets(secrets).call();
                client.volume("vol-0").enable().secrets(secrets).call();
                client.volume("vol-0").promote().secrets(secrets).call();
                assertThatThrownBy(() -> client.volume("vol-1")
                                .promote()
                                .secrets(secrets)
                                .call())
                        .isInstanceOf(PreconditionFailedException.class);
                assertThatThrownBy(() ->
                                client.volume("vol-9").enable().secrets(secrets).call())
                        .isInstanceOf(SourceNotFoundException.class);
                assertThatThrownBy(() -> client.volume("vol-1")
                                .demote()
                                .secrets(Map.of("user", "wrong"))
                                .call())
                        .isInstanceOf(UnauthenticatedException.class);
            }

            String scrape = HttpClient.newHttpClient()
                    .send(HttpRequest.newBuilder(URI.create(metricsUrl)).build(), HttpResponse.BodyHandlers.ofString())
                    .body();

            assertThat(count(scrape, "EnableVolumeReplication", "0")).isEqualTo(2);
            assertThat(count(scrape, "PromoteVolume", "0")).isEqualTo(1);
            assertThat(count(scrape, "PromoteVolume", "9")).isEqualTo(1);
            assertThat(count(scrape, "EnableVolumeReplication", "5")).isEqualTo(1);
            assertThat(count(scrape, "DemoteVolume", "16")).isEqualTo(1);
            assertThat(scrape).doesNotContain("vol-0", "vol-1", "vol-9", "admin", "wrong");
            // What the plugin saw is what the client counted (NOT_FOUND and UNAUTHENTICATED are not retried
            // without a verifier or a renewing secrets provider).
            assertThat(clientMeters
                            .get("volrep.client.call.attempts")
                            .tags("rpc.method", "EnableVolumeReplication", "rpc.grpc.status_code", "0")
                            .summary()
                            .totalAmount())
                    .isEqualTo(2.0);
            assertThat(clientMeters
                            .get("volrep.client.call.attempts")
                            .tags("rpc.method", "EnableVolumeReplication", "rpc.grpc.status_code", "5")
                            .summary()
                            .totalAmount())
                    .isEqualTo(1.0);

            assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(process.pid()))
                            .start()
                            .waitFor(5, TimeUnit.MINUTES))
                    .isTrue();
            assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(process.exitValue()).isZero();
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void aBadMetricsAddressIsAUsageError() {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        assertThat(cli.execute("serve-reference", "--metrics-listen", "localhost:http"))
                .isEqualTo(2);
        assertThat(out.toString()).contains("--metrics-listen localhost:http: expected HOST:PORT");
    }

    /** The {@code _count} of {@code volrep_server_calls_seconds} for one method and code, from the text format. */
    private static long count(String scrape, String method, String code) {
        return scrape.lines()
                .filter(l -> l.startsWith("volrep_server_calls_seconds_count{"))
                .filter(l -> l.contains("rpc_method=\"" + method + "\"")
                        && l.contains("rpc_grpc_status_code=\"" + code + "\""))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}

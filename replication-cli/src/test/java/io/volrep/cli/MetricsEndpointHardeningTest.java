package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.spi.ReplicationServer;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --metrics-listen} cannot be stalled: scrapes keep answering while 20 idle and slow-drip connections are
 * open, each connection is cut once it has had its read timeout, and only the exact path {@code /metrics} answers.
 * Real sockets on the loopback interface, bounded in count and time.
 */
class MetricsEndpointHardeningTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

    private static MetricsOptions.Endpoint start() {
        return start(READ_TIMEOUT);
    }

    private static MetricsOptions.Endpoint start(Duration readTimeout) {
        MetricsOptions metrics = new MetricsOptions();
        metrics.metricsListen = "127.0.0.1:0";
        metrics.readTimeout = readTimeout;
        metrics.bind(ReplicationServer.builder());
        return metrics.start();
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(3))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static InetSocketAddress address(String url) {
        URI uri = URI.create(url);
        return new InetSocketAddress(uri.getHost(), uri.getPort());
    }

    /** Waits until the server closes {@code socket}; returns how long that took from {@code since}. */
    private static Duration closedAfter(Socket socket, long since) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // a 408 or any answer before the close is fine
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept the connection open for 10 s", e);
        } catch (IOException e) {
            // reset: closed too
        }
        return Duration.ofNanos(System.nanoTime() - since);
    }

    @Test
    void scrapesAnswerWhileTwentyIdleAndSlowConnectionsAreOpenAndThoseAreCut() throws Exception {
        ScheduledExecutorService drip = Executors.newSingleThreadScheduledExecutor();
        List<Socket> idle = new ArrayList<>();
        List<Socket> slow = new ArrayList<>();
        MetricsOptions.Endpoint endpoint = grpc.register(start());
        try {
            InetSocketAddress address = address(endpoint.url());
            long opened = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                idle.add(new Socket(address.getAddress(), address.getPort()));
                Socket s = new Socket(address.getAddress(), address.getPort());
                s.getOutputStream().write("G".getBytes(StandardCharsets.US_ASCII));
                slow.add(s);
            }
            // One header byte every 300 ms on each slow connection, for as long as the server lets it.
            drip.scheduleAtFixedRate(
                    () -> {
                        for (Socket s : slow) {
                            try {
                                OutputStream out = s.getOutputStream();
                                out.write('E');
                                out.flush();
                            } catch (IOException e) {
                                // cut by the server
                            }
                        }
                    },
                    300,
                    300,
                    TimeUnit.MILLISECONDS);

            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(3))
                    .build();
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                HttpResponse<String> scrape = get(http, endpoint.url());
                assertThat(scrape.statusCode()).isEqualTo(200);
                assertThat(scrape.headers().firstValue("Content-Type")).hasValue(MetricsOptions.CONTENT_TYPE);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            }

            // Every one of them is cut once it had its read timeout, the dripping ones too.
            for (Socket s : idle) {
                assertThat(closedAfter(s, opened))
                        .isBetween(READ_TIMEOUT.minusMillis(200), READ_TIMEOUT.plusSeconds(3));
            }
            for (Socket s : slow) {
                assertThat(closedAfter(s, opened))
                        .isBetween(READ_TIMEOUT.minusMillis(200), READ_TIMEOUT.plusSeconds(3));
            }
            // And the endpoint still answers.
            assertThat(get(http, endpoint.url()).statusCode()).isEqualTo(200);
        } finally {
            drip.shutdownNow();
            for (Socket s : idle) {
                s.close();
            }
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    /**
     * Issue 45, item 4: with the connection limit filled by idle connections, a scraper still gets through (before the
     * fix, 10 of 12 scrapes were reset until the idle ones timed out). The oldest idle connection makes room.
     */
    @Test
    void aScraperGetsThroughWhileIdleConnectionsFillTheLimit() throws Exception {
        // A read timeout far longer than the test: the idle connections stay until the server evicts them.
        MetricsOptions.Endpoint endpoint = grpc.register(start(Duration.ofMinutes(2)));
        InetSocketAddress address = address(endpoint.url());
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < MetricsHttpServer.MAX_CONNECTIONS; i++) {
                idle.add(new Socket(address.getAddress(), address.getPort()));
            }
            // Twelve scrapes while the limit stays filled: an idle connection opened before each one.
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(3))
                    .build();
            for (int i = 0; i < 12; i++) {
                idle.add(new Socket(address.getAddress(), address.getPort()));
                assertThat(get(http, endpoint.url()).statusCode())
                        .as("scrape %d", i)
                        .isEqualTo(200);
            }
            // Room was made by closing the oldest idle connection; the newest is still open.
            assertThat(closedAfter(idle.get(0), System.nanoTime())).isLessThan(Duration.ofSeconds(10));
            Socket newest = idle.get(idle.size() - 1);
            newest.setSoTimeout(300);
            assertThatThrownBy(() -> newest.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void onlyTheExactPathAnswers() throws Exception {
        MetricsOptions.Endpoint endpoint = grpc.register(start());
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
        String base = endpoint.url().substring(0, endpoint.url().length() - "/metrics".length());
        assertThat(get(http, base + "/metrics").statusCode()).isEqualTo(200);
        assertThat(get(http, base + "/metrics?name[]=volrep_server_calls_seconds")
                        .statusCode())
                .isEqualTo(200);
        for (String path : List.of("/metricsX", "/metrics/foo", "/%6detrics", "/", "/metrics/", "/Metrics")) {
            assertThat(get(http, base + path).statusCode()).as(path).isEqualTo(404);
        }
        HttpResponse<String> post = http.send(
                HttpRequest.newBuilder(URI.create(endpoint.url()))
                        .timeout(Duration.ofSeconds(3))
                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }
}

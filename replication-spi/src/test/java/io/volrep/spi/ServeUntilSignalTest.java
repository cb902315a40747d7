package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.testsupport.Signals;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ServeUntilSignal}: a plugin process stopped by SIGTERM or SIGINT drains and exits 0, not 143 / 130. */
class ServeUntilSignalTest {

    @TempDir
    Path dir;

    /** A plugin's main: {@code Main <listen>}, exits with what {@link ServeUntilSignal#run} returns. */
    public static final class Main {
        public static void main(String[] args) throws Exception {
            ReplicationServer server = ReplicationServer.builder()
                    .driver(new NoOpDriver())
                    .listen(args[0])
                    .build()
                    .start();
            System.exit(ServeUntilSignal.run(
                    server,
                    server::close,
                    new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true)));
        }
    }

    static final class NoOpDriver implements ReplicationDriver {
        @Override
        public void enable(EnableRequest request) {}

        @Override
        public void disable(DisableRequest request) {}
    }

    @Test
    void sigtermExitsZeroAfterTheDrain() throws Exception {
        assertThat(exitStatusAfter("TERM")).isZero();
    }

    @Test
    void sigintExitsZeroAfterTheDrain() throws Exception {
        // A background job of a non-interactive shell starts with SIGINT ignored, and so does every child: the
        // JVM can then install no INT handler and `kill -INT` does nothing, whatever volrep does.
        Assumptions.assumeFalse(Signals.sigintIgnored(), Signals.SIGINT_IGNORED);
        assertThat(exitStatusAfter("INT")).isZero();
    }

    @Test
    void returnsZeroAndStopsOnceWhenTheServerIsClosedElsewhere() throws Exception {
        ReplicationServer server = ReplicationServer.builder()
                .driver(new NoOpDriver())
                .listen("inprocess:serve-until-signal")
                .build()
                .start();
        AtomicInteger stops = new AtomicInteger();
        StringWriter out = new StringWriter();
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> {
            try {
                return ServeUntilSignal.run(
                        server,
                        () -> {
                            stops.incrementAndGet();
                            server.close();
                        },
                        new PrintWriter(out));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (!out.toString().startsWith("listening on ")) {
            Thread.sleep(10);
        }
        server.close();
        assertThat(status.get(5, TimeUnit.MINUTES)).isZero();
        assertThat(stops)
                .as("stop still runs (once) to release what goes with the server")
                .hasValue(1);
        assertThat(out.toString()).isEqualTo("listening on inprocess:serve-until-signal" + System.lineSeparator());
    }

    private int exitStatusAfter(String signal) throws Exception {
        Path socket = dir.resolve("s.sock");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "unix://" + socket)
                .redirectErrorStream(true)
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("listening on ")) {
                // slf4j output before the ready line
            }
            assertThat(line).isEqualTo("listening on unix://" + socket);
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).start();
            assertThat(kill.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(child.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(socket).as("socket removed by the drain").doesNotExist();
            return child.exitValue();
        } finally {
            child.destroyForcibly();
        }
    }
}

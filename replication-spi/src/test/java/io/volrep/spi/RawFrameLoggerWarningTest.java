package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gRPC's HTTP/2 frame loggers write every frame, the request's secrets included, as hex at DEBUG (FINE): a server
 * started while one is on says so once, naming it; with them off it says nothing of them.
 */
class RawFrameLoggerWarningTest {
    static final String SERVER_FRAMES = "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler";

    @TempDir
    Path dir;

    private String startAndStop(String name) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (ReplicationServer server = ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("unix://" + dir.resolve(name + ".sock"))
                .gracePeriod(Duration.ZERO)
                .build()
                .start()) {
            assertThat(server.address()).startsWith("unix://");
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aServerStartedWithAFrameLoggerOnWarnsOnceNamingIt() {
        assertThat(ReplicationServer.RAW_FRAME_LOGGERS)
                .contains(SERVER_FRAMES, "io.grpc.netty.shaded.io.grpc.netty.NettyClientHandler");
        assertThat(startAndStop("quiet")).doesNotContain(SERVER_FRAMES);

        Logger frames = Logger.getLogger(SERVER_FRAMES); // held: JUL keeps loggers weakly
        Level before = frames.getLevel();
        frames.setLevel(Level.FINE);
        try {
            String log = startAndStop("loud");
            assertThat(log.lines().filter(l -> l.contains("WARN") && l.contains(SERVER_FRAMES)))
                    .hasSize(1);
            assertThat(log).contains("write every HTTP/2 frame, secrets included, as hex");
        } finally {
            frames.setLevel(before);
        }
    }
}

package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call over a unix socket logs no netty warning about TCP options (slf4j-simple writes to System.err, captured
 * here as the other logging tests do).
 */
class UnixSocketLoggingTest {

    @Test
    void unixSocketCallsLogNoUnknownChannelOptionWarning(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).groups(0).build();
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (ReplicationServer server = ReferencePlugin.start(driver, "unix://" + dir.resolve("k.sock"));
             ReplicationClient client = ReplicationClient.builder().target(server.address()).build()) {
            client.volume("vol-0").enable().call();
            client.volume("vol-0").disable().call();
        } finally {
            System.setErr(original);
        }
        String logs = captured.toString(StandardCharsets.UTF_8);
        assertThat(logs).as("the calls were logged (else the capture proves nothing)")
                .contains("EnableVolumeReplication volume vol-0 -> OK");
        assertThat(logs).doesNotContain("Unknown channel option").doesNotContain("SO_KEEPALIVE");
    }

    @Test
    void untrustedTextIsEscapedInTheClientsLog(@TempDir Path dir) {
        // Issue 13 point 6, client side: text the client logs cannot forge a log line.
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).groups(0).build();
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (ReplicationServer server = ReferencePlugin.start(driver, "unix://" + dir.resolve("e.sock"));
             ReplicationClient client = ReplicationClient.builder().target(server.address()).listener(e -> {
                 throw new IllegalStateException("listener failed\nINFO forged line");
             }).build()) {
            client.volume("vol-0").enable().call();
        } finally {
            System.setErr(original);
        }
        String logs = captured.toString(StandardCharsets.UTF_8);
        assertThat(logs).contains("listener failed\\nINFO forged line").doesNotContain("\nINFO forged line");
    }
}

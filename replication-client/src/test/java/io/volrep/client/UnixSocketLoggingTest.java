package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.CapturedStderr;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call over a unix socket logs no netty warning about TCP options (slf4j-simple writes to System.err, captured
 * here as the other logging tests do).
 */
class UnixSocketLoggingTest {

    @Test
    void unixSocketCallsLogNoUnknownChannelOptionWarning(@TempDir Path dir) throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).groups(0).build();
        String logs = CapturedStderr.during(() -> {
            try (ReplicationServer server = ReferencePlugin.start(driver, "unix://" + dir.resolve("k.sock"));
                    ReplicationClient client =
                            ReplicationClient.builder().target(server.address()).build()) {
                client.volume("vol-0").enable().call();
                client.volume("vol-0").disable().call();
            }
        });
        assertThat(logs)
                .as("the calls were logged (else the capture proves nothing)")
                .contains("EnableVolumeReplication volume vol-0 -> OK");
        assertThat(logs).doesNotContain("Unknown channel option").doesNotContain("SO_KEEPALIVE");
    }

    @Test
    void untrustedTextIsEscapedInTheClientsLog(@TempDir Path dir) throws Exception {
        // Issue 13 point 6, client side: text the client logs cannot forge a log line.
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).groups(0).build();
        String logs = CapturedStderr.during(() -> {
            try (ReplicationServer server = ReferencePlugin.start(driver, "unix://" + dir.resolve("e.sock"));
                    ReplicationClient client = ReplicationClient.builder()
                            .target(server.address())
                            .listener(e -> {
                                throw new IllegalStateException("listener failed\nINFO forged line");
                            })
                            .build()) {
                client.volume("vol-0").enable().call();
            }
        });
        assertThat(logs).contains("listener failed\\nINFO forged line").doesNotContain("\nINFO forged line");
    }
}

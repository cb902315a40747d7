package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.CapturedStderr;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The testkit's own channels (the conformance suite's, {@code volrep conformance --endpoint unix://...}) log no
 * netty warning about TCP options on a unix socket (slf4j-simple writes to System.err, captured here).
 */
class EndpointsTest {

    @Test
    void aUnixSocketChannelLogsNoUnknownChannelOptionWarning(@TempDir Path dir) throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).groups(0).build();
        String logs = CapturedStderr.during(() -> {
            try (ReplicationServer server = ReferencePlugin.start(driver, "unix://" + dir.resolve("e.sock"));
                    Endpoints.OpenChannel open = Endpoints.open(server.address())) {
                ControllerGrpc.newBlockingStub(open.channel())
                        .enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                                .setReplicationSource(ReplicationSource.newBuilder()
                                        .setVolume(ReplicationSource.VolumeSource.newBuilder()
                                                .setVolumeId("vol-0")))
                                .build());
            }
        });
        assertThat(logs)
                .as("the call was logged (else the capture proves nothing)")
                .contains("EnableVolumeReplication volume vol-0 -> OK");
        assertThat(logs).doesNotContain("Unknown channel option").doesNotContain("SO_KEEPALIVE");
    }
}

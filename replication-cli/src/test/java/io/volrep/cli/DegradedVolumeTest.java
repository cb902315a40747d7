package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.ReplicationInfo;
import io.volrep.client.ReplicationClient;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code serve-reference --degraded-volume ID}: that volume's info reports DEGRADED with a message, others not. */
class DegradedVolumeTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void aDegradedVolumeReportsItsHealthAndTheOthersDoNot() {
        String name = "inprocess:" + InProcessServerBuilder.generateName();
        grpc.register(ReferencePlugin.start(
                ReferenceDriver.builder().volumes(2).degradedVolume("vol-0").build(), name));
        ReplicationClient client =
                grpc.register(ReplicationClient.builder().target(name).build());
        client.volume("vol-0").enable().call();
        client.volume("vol-1").enable().call();

        ReplicationInfo degraded = client.volume("vol-0").info();
        assertThat(degraded.status()).isEqualTo(ReplicationInfo.Status.DEGRADED);
        assertThat(degraded.statusMessage()).contains("lagging");
        assertThat(client.volume("vol-1").info().status()).isEqualTo(ReplicationInfo.Status.HEALTHY);
    }

    @Test
    void theOptionIsListedInTheHelp() {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("serve-reference", "--help")).isZero();
        assertThat(out.toString()).contains("--degraded-volume");
        StringWriter help = new StringWriter();
        cli.setOut(new PrintWriter(help));
        assertThat(cli.execute("destination", "--help")).isZero();
        assertThat(help.toString()).contains("GetReplicationDestinationInfo", "--volume-group");
    }
}

package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.SpecDialect;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code volrep conformance --dialect} and the healer options; {@code serve-reference --dialect/--abnormal-volume}. */
class ConformanceDialectHealerCommandTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    record Run(int exit, String out) {}

    private static Run run(String... args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        int exit = cli.execute(args);
        return new Run(exit, out.toString());
    }

    @Test
    void embeddedReferenceRunsTheHealerAndIdentityChecks() {
        Run r = run("conformance", "--include-tag", "required");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out())
                .contains("node volumes {vol-0=/var/lib/volrep/vol-0}, staged at /var/lib/volrep/staging/vol-0,"
                        + " block volumes {vol-1=/dev/volrep/vol-1}")
                .doesNotContain("SKIPPED         required NodeHealer")
                .contains("PASS            required NodeHealer: a block volume_capability is accepted [block volume]")
                .contains(
                        "PASS            required NodeHealer: an absolute staging_target_path of 128+ bytes is accepted")
                .contains("PASS            required NodeHealer: the volume's volume_context is accepted")
                .contains("PASS            required NodeHealer: Missing required field -> 3 INVALID_ARGUMENT "
                        + "[staging_target_path relative]")
                .contains("PASS            required NodeHealer: message is REQUIRED in every answer")
                .contains("PASS            required Identity: GetCapabilities advertises "
                        + "VolumeReplication.VOLUME_REPLICATION")
                .contains("COMPLIANT");
    }

    @Test
    void embeddedReferenceInEachLegacyDialectIsCompliantWithThatDialectsRows() {
        Run v013 = run("conformance", "--dialect", "v0.1.3", "--include-tag", "required");
        assertThat(v013.exit()).as(v013.out()).isZero();
        assertThat(v013.out())
                .contains("spec v0.1.3")
                .contains("volume_id missing (REQUIRED in v0.1.3)")
                .contains("GetVolumeReplicationInfo")
                .doesNotContain("FAIL ");

        Run head = run("conformance", "--dialect", "upstream-2026");
        assertThat(head.exit()).as(head.out()).isZero();
        assertThat(head.out())
                .contains("spec upstream-2026")
                .doesNotContain("FAIL ")
                .contains("PASS            required Request form: reserved field 1 (volume_id) alone names no source")
                .contains(
                        "PASS            required Request form: reserved field 1 (volume_id) beside replication_source")
                .doesNotContain("deprecated volume_id alone");

        Run v010 = run("conformance", "--dialect", "v0.1.0", "--include-tag", "required");
        assertThat(v010.exit()).as(v010.out()).isZero();
        assertThat(v010.out())
                .contains("spec v0.1.0")
                .contains("Volume does not exist")
                .doesNotContain("GetVolumeReplicationInfo:")
                .doesNotContain("FAIL ");
    }

    @Test
    void legacyPluginOnAUnixSocketWithHealerFlags(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .abnormalVolume("vol-1")
                .build();
        ReplicationServer server =
                grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("p.sock"), SpecDialect.V0_1_3));
        Run r = run(
                "conformance",
                "--endpoint",
                server.address(),
                "--dialect",
                "v0.1.3",
                "--volume",
                "vol-0",
                "--volume-group",
                "grp-0",
                "--healer-volume",
                "vol-1=/mnt/vol-1",
                "--include-tag",
                "required");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out())
                .contains("PASS            required NodeHealer: message is REQUIRED in every answer")
                .contains("spec v0.1.3");
    }

    @Test
    void healerInputsOnAUnixSocketAndAStagingPathWithoutAVolumeIsAUsageError(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("h.sock")));
        Run r = run(
                "conformance",
                "--endpoint",
                server.address(),
                "--volume",
                "vol-0",
                "--include-tag",
                "required",
                "--secret",
                "user=admin",
                "--skip",
                "*/group/*",
                "--healer-volume",
                "vol-0=/mnt/vol-0",
                "--healer-staging-path",
                "/var/lib/kubelet/plugins/kubernetes.io/csi/pv/vol-0/globalmount",
                "--healer-volume-context",
                "pool=rbd",
                "--healer-block-volume",
                "vol-1=/dev/rbd1");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out())
                .contains("staged at /var/lib/kubelet/plugins/kubernetes.io/csi/pv/vol-0/globalmount")
                .contains("PASS            required NodeHealer: a mount volume_capability is accepted")
                .contains("PASS            required NodeHealer: a block volume_capability is accepted")
                .doesNotContain("SKIPPED         required NodeHealer");

        Run usage = run(
                "conformance",
                "--endpoint",
                server.address(),
                "--volume",
                "vol-0",
                "--healer-staging-path",
                "/staging/vol-0");
        assertThat(usage.exit()).isEqualTo(2);
        assertThat(usage.out()).contains("healerStagingPath and healerVolumeContext describe the first healerVolume");
    }

    @Test
    void wrongDialectIsNotCompliant(@TempDir Path dir) {
        ReplicationServer server = grpc.register(ReferencePlugin.start(
                ReferenceDriver.builder().volumes(1).groups(1).build(), "unix://" + dir.resolve("c.sock")));
        Run r = run(
                "conformance",
                "--endpoint",
                server.address(),
                "--dialect",
                "v0.1.3",
                "--volume",
                "vol-0",
                "--volume-group",
                "grp-0",
                "--include-tag",
                "required");
        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(r.out()).contains("NOT COMPLIANT");
    }

    @Test
    void serveReferenceHasDialectAndAbnormalVolumeOptions() {
        Run help = run("serve-reference", "--help");
        assertThat(help.out()).contains("--dialect", "--abnormal-volume", "healer.HealerNode", "identity.Identity");
        Run bad = run("serve-reference", "--dialect", "v9");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.out()).contains("unknown spec dialect 'v9'");
        Run badConformance = run("conformance", "--dialect", "v9");
        assertThat(badConformance.exit()).isEqualTo(2);
    }
}

package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 3's criterion (and issue 6's healer half): {@code volrep serve-reference} probed by interop/client.js,
 * an independent Node client written from the seed protos, gets the spec's code for every case.
 */
class ServeReferenceInteropIT {
    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
    }

    @Test
    void independentClientGetsTheSpecsCodeForEveryReplicationCase() throws InterruptedException {
        var socket = Interop.socketPath();
        Peer ref = Peer.start(
                socket,
                Interop.volrep(
                        "serve-reference",
                        "--listen",
                        "unix://" + socket,
                        "--volumes",
                        "16",
                        "--groups",
                        "2",
                        "--secret",
                        "user=admin"));
        cleanup.register(ref);

        Result r = Interop.run(
                Interop.node("client.js", "--endpoint", ref.endpoint(), "--secret", "user=admin"), Interop.RUN_TIMEOUT);

        assertThat(r.output())
                .as("client.js against serve-reference:\n%s", r.output())
                .doesNotContain("FAIL ")
                .contains(" 0 mismatches");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(ref.terminate())
                .as("serve-reference exits 0 after a SIGTERM drain:\n%s", ref.output())
                .isZero();
        assertThat(socket).as("socket removed").doesNotExist();
    }

    @Test
    void independentClientGetsTheSpecsCodeForEveryHealerCase() {
        assumeTrue(
                Interop.cliSupports("serve-reference", "--abnormal-volume"),
                "serve-reference has no --abnormal-volume yet (issue 6 not landed)");
        var socket = Interop.socketPath();
        Peer ref = Peer.start(
                socket,
                Interop.volrep(
                        "serve-reference",
                        "--listen",
                        "unix://" + socket,
                        "--volumes",
                        "16",
                        "--groups",
                        "2",
                        "--secret",
                        "user=admin",
                        "--abnormal-volume",
                        "vol-9"));
        cleanup.register(ref);

        Result r = Interop.run(
                Interop.node(
                        "client.js",
                        "--endpoint",
                        ref.endpoint(),
                        "--secret",
                        "user=admin",
                        "--healer",
                        "--abnormal-volume",
                        "vol-9",
                        "--only",
                        "NodeHealer"),
                Interop.RUN_TIMEOUT);

        assertThat(r.output()).as(r.output()).doesNotContain("FAIL ").contains(" 0 mismatches");
        assertThat(r.exit()).as(r.output()).isZero();
    }

    /** The client's expectations hold against a second, independent implementation too (Node plugin.js). */
    @Test
    void independentClientAgreesWithTheIndependentNodePlugin() {
        var socket = Interop.socketPath();
        Peer plugin = Peer.start(
                socket,
                Interop.node(
                        "plugin.js",
                        "--listen",
                        "unix://" + socket,
                        "--secret",
                        "user=admin",
                        "--abnormal-volume",
                        "vol-9",
                        "--quiet"));
        cleanup.register(plugin);

        Result r = Interop.run(
                Interop.node(
                        "client.js",
                        "--endpoint",
                        plugin.endpoint(),
                        "--secret",
                        "user=admin",
                        "--healer",
                        "--abnormal-volume",
                        "vol-9"),
                Interop.RUN_TIMEOUT);

        assertThat(r.output()).as(r.output()).doesNotContain("FAIL ").contains(" 0 mismatches");
        assertThat(r.exit()).isZero();
    }
}

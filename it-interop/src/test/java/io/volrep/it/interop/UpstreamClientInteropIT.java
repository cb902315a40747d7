package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import io.volrep.it.interop.Interop.Peer;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 14: volrep's client against an independent plugin built on the upstream 2026 protos
 * ({@code node interop/plugin.js --revision upstream-2026}): the health status, the seventh RPC after a transient
 * UNAVAILABLE, the group's member map, the Identity capability, and the deprecated field 1 the client still
 * sends, which that plugin reserves and ignores.
 */
class UpstreamClientInteropIT {
    private static final String SECRET = "password=upstream-2026";

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
    }

    private Peer upstreamPlugin() {
        var socket = Interop.socketPath();
        Peer p = Peer.start(
                socket,
                Interop.node(
                        "plugin.js",
                        "--revision",
                        "upstream-2026",
                        "--listen",
                        "unix://" + socket,
                        "--volumes",
                        "4",
                        "--groups",
                        "1",
                        "--secret",
                        SECRET,
                        "--degraded-volume",
                        "vol-0",
                        "--group-members",
                        "grp-0=vol-1,vol-2",
                        "--destination-prefix",
                        "b-",
                        "--destination-unavailable-calls",
                        "1",
                        "--quiet"));
        cleanup.register(p);
        return p;
    }

    @Test
    void healthDestinationsAndCapabilityFromAnUpstreamPlugin() {
        Peer plugin = upstreamPlugin();
        RetryPolicy fast = RetryPolicy.spec().toBuilder()
                .initialBackoff(Duration.ofMillis(20))
                .maxBackoff(Duration.ofMillis(200))
                .build();
        try (ReplicationClient client = ReplicationClient.builder()
                .target(plugin.endpoint())
                .retry(fast)
                .secrets(SecretsProvider.of(Map.of("password", "upstream-2026")))
                .build()) {
            assertThat(client.capabilities().destinationInfo()).isTrue();
            assertThat(client.capabilities().volumeReplication()).isTrue();

            client.volume("vol-0").enable().call();
            ReplicationInfo degraded = client.volume("vol-0").info();
            assertThat(degraded.status()).isEqualTo(ReplicationInfo.Status.DEGRADED);
            assertThat(degraded.statusMessage()).isNotEmpty();
            client.volume("vol-3").enable().call();
            assertThat(client.volume("vol-3").info().status()).isEqualTo(ReplicationInfo.Status.HEALTHY);

            // The first call after Enable answers 14 UNAVAILABLE (not yet available): retried, then the id.
            assertThat(client.volume("vol-0").destination()).isEqualTo(ReplicationDestination.volume("b-vol-0"));
            client.volumeGroup("grp-0").enable().call();
            assertThat(client.volumeGroup("grp-0").destination())
                    .isEqualTo(ReplicationDestination.volumeGroup(
                            "b-grp-0", Map.of("vol-1", "b-vol-1", "vol-2", "b-vol-2")));

            client.volume("vol-3").disable().call();
            assertThatThrownBy(() -> client.volume("vol-3").destination())
                    .isInstanceOf(PreconditionFailedException.class);
        }
    }

    @Test
    void theCommandLineShowsDegradedHealthAndPrintsDestinationsAfterATransientUnavailable() {
        Peer plugin = upstreamPlugin();
        String[] common = {"--endpoint", plugin.endpoint(), "--secret", SECRET};
        Duration timeout = Interop.RUN_TIMEOUT;
        assertThat(Interop.run(Interop.volrep(concat(new String[] {"enable", "--volume", "vol-0"}, common)), timeout)
                        .exit())
                .isZero();
        Interop.Result info =
                Interop.run(Interop.volrep(concat(new String[] {"info", "--volume", "vol-0"}, common)), timeout);
        assertThat(info.exit()).as(info.output()).isZero();
        assertThat(info.output()).contains("status:             DEGRADED").contains("status message:");

        Interop.Result volume =
                Interop.run(Interop.volrep(concat(new String[] {"destination", "--volume", "vol-0"}, common)), timeout);
        assertThat(volume.exit()).as(volume.output()).isZero();
        assertThat(volume.output()).contains("destination: b-vol-0");

        assertThat(Interop.run(
                                Interop.volrep(concat(new String[] {"enable", "--volume-group", "grp-0"}, common)),
                                timeout)
                        .exit())
                .isZero();
        Interop.Result group = Interop.run(
                Interop.volrep(concat(new String[] {"destination", "--volume-group", "grp-0"}, common)), timeout);
        assertThat(group.exit()).as(group.output()).isZero();
        assertThat(group.output()).contains("destination: b-grp-0", "vol-1 -> b-vol-1", "vol-2 -> b-vol-2");

        Interop.Result refused =
                Interop.run(Interop.volrep(concat(new String[] {"destination", "--volume", "vol-3"}, common)), timeout);
        assertThat(refused.exit()).as(refused.output()).isNotZero();
        assertThat(refused.output()).contains("9 FAILED_PRECONDITION");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

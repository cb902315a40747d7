package io.volrep.spi;

import static io.volrep.spi.InProcessHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.VolumeGroup;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.volumegroup.ControllerGrpc;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the runtime writes to the log (slf4j-simple, configured by simplelogger.properties to write to System.err
 * with io.volrep at DEBUG), captured by swapping System.err: one INFO line per call, sanitized DEBUG lines, and
 * never a secret value, whatever the call's outcome.
 */
class LoggingTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final String SECRET = "S3cr3t-Value-77";
    private static final Map<String, String> SECRETS = Map.of("password", SECRET, "user", "admin-user");

    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;
    private ScriptedDriver driver;
    private InProcessHarness harness;
    private final List<String> clientMessages = new ArrayList<>();

    @BeforeEach
    void capture() {
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        driver = new ScriptedDriver();
        harness = grpc.register(new InProcessHarness(driver));
    }

    @AfterEach
    void restore() {
        System.setErr(originalErr);
        originalErr.print(log());
    }

    private String log() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    private Status send(Rpc rpc, WireCalls.Fields fields) {
        Status status = statusOf(() -> WireCalls.call(harness.stub, rpc, fields));
        if (status.getDescription() != null) {
            clientMessages.add(status.getDescription());
        }
        return status;
    }

    @Test
    void oneInfoLinePerCallAndSanitizedDebug() {
        assertThat(send(
                                Rpc.ENABLE_VOLUME_REPLICATION,
                                WireCalls.Fields.volume("vol-1")
                                        .withSecrets(SECRETS)
                                        .withParameters(Map.of("mode", "snapshot")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(send(Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("")).getCode())
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        String log = log();
        assertThat(log)
                .containsPattern("INFO io\\.volrep\\.spi\\.runtime\\.CallRunner - EnableVolumeReplication "
                        + "volume vol-1 -> OK in \\d+ ms");
        assertThat(log)
                .containsPattern("INFO .* - PromoteVolume \\(invalid request\\) -> 3 INVALID_ARGUMENT in \\d+ ms: "
                        + "replication_source\\.volume\\.volume_id");
        assertThat(log)
                .contains("DEBUG io.volrep.spi.runtime.CallRunner - EnableVolumeReplication request "
                        + "EnableVolumeReplicationRequest{")
                .contains("key: \"password\" value: \"***\"")
                .contains("key: \"mode\" value: \"snapshot\"")
                .contains("EnableVolumeReplication response EnableVolumeReplicationResponse{}");
        assertThat(log.lines()
                        .filter(l -> l.contains("INFO") && l.contains("CallRunner"))
                        .count())
                .isEqualTo(2);
        assertThat(log).doesNotContain(SECRET).doesNotContain("admin-user");
    }

    @Test
    void noSecretValueAnywhereWhateverTheOutcome() {
        // Every RPC, successful.
        for (Rpc rpc : Rpc.values()) {
            if (rpc.isReplication()) {
                send(rpc, WireCalls.Fields.volume("vol-1").withSecrets(SECRETS));
            }
        }
        // Invalid requests carrying secrets.
        send(Rpc.ENABLE_VOLUME_REPLICATION, new WireCalls.Fields(null, null, null, SECRETS, null));
        send(
                Rpc.ENABLE_VOLUME_REPLICATION,
                WireCalls.Fields.volume("vol-1").withSecrets(Map.of("password", SECRET, "padding", "x".repeat(5000))));
        send(
                Rpc.DEMOTE_VOLUME,
                WireCalls.Fields.volume("vol-1").withVolumeId("vol-2").withSecrets(SECRETS));
        // A driver that puts the secret into a typed exception's message...
        driver.onCall = () -> {
            throw new UnauthenticatedException("password " + SECRET + " rejected");
        };
        assertThat(send(Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-1").withSecrets(SECRETS))
                        .getCode())
                .isEqualTo(Status.Code.UNAUTHENTICATED);
        // ... and into an unexpected exception and its cause.
        driver.onCall = () -> {
            throw new IllegalStateException(
                    "login as admin-user failed", new RuntimeException("wrong password " + SECRET));
        };
        assertThat(send(
                                Rpc.DISABLE_VOLUME_REPLICATION,
                                WireCalls.Fields.volume("vol-1").withSecrets(SECRETS))
                        .getCode())
                .isEqualTo(Status.Code.UNKNOWN);
        // An invalid response.
        driver.onCall = () -> {};
        driver.info = r -> null;
        send(Rpc.GET_VOLUME_REPLICATION_INFO, WireCalls.Fields.volume("vol-1").withSecrets(SECRETS));

        String log = log();
        assertThat(log)
                .contains("-> 16 UNAUTHENTICATED")
                .contains("-> 2 UNKNOWN")
                .contains("unexpected java.lang.IllegalStateException from the driver")
                .contains("Caused by: java.lang.RuntimeException: wrong password ***")
                .contains("driver returned an invalid response");
        assertThat(log).doesNotContain(SECRET).doesNotContain("admin-user");
        assertThat(clientMessages).isNotEmpty().noneMatch(m -> m.contains(SECRET) || m.contains("admin-user"));
        assertThat(clientMessages).contains("password *** rejected");
    }

    /** A newline and a fake log line, and a terminal escape sequence (red text, then clear the screen). */
    private static final String FORGED = "\nINFO io.volrep.spi.runtime.CallRunner - PromoteVolume volume x -> OK";

    private static final String ANSI = "\u001b[31mred\u001b[2J";

    @Test
    void untrustedTextCannotForgeLogLinesNorReachTheTerminal() {
        // A source id from an unauthenticated caller, valid as far as the spec goes (any bytes, up to 128).
        assertThat(send(Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1" + FORGED))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(send(
                                Rpc.DEMOTE_VOLUME,
                                WireCalls.Fields.volume("vol-2" + ANSI).withVolumeId("vol-3" + FORGED))
                        .getCode())
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        // Driver messages: a typed exception's, an unexpected exception's (and its cause's), an invalid response.
        driver.onCall = () -> {
            throw new UnauthenticatedException("rejected" + FORGED + ANSI);
        };
        assertThat(send(Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-4")).getCode())
                .isEqualTo(Status.Code.UNAUTHENTICATED);
        driver.onCall = () -> {
            throw new IllegalStateException("boom" + FORGED, new RuntimeException("cause" + ANSI + FORGED));
        };
        assertThat(send(Rpc.DISABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-5"))
                        .getCode())
                .isEqualTo(Status.Code.UNKNOWN);

        String log = log();
        assertThat(log)
                .doesNotContain("\u001b")
                .doesNotContain("\nINFO io.volrep.spi.runtime.CallRunner - PromoteVolume " + "volume x");
        assertThat(log.lines()
                        .filter(l -> l.startsWith("INFO io.volrep.spi.runtime.CallRunner - PromoteVolume volume x")))
                .isEmpty();
        assertThat(log)
                .contains("EnableVolumeReplication volume vol-1\\nINFO io.volrep.spi.runtime.CallRunner")
                .contains("rejected\\nINFO")
                .contains("\\u001b[31m")
                .contains("unexpected java.lang.IllegalStateException from the driver")
                .contains("java.lang.IllegalStateException: boom\\nINFO")
                .contains("Caused by: java.lang.RuntimeException: cause\\u001b[31m");
    }

    @Test
    void aReadinessCheckFailureIsLoggedEscaped() {
        String name = InProcessServerBuilder.generateName();
        try (ReplicationServer server = ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .readiness(() -> {
                    throw new IllegalStateException("backend down" + FORGED + ANSI);
                })
                .listen("inprocess:" + name)
                .build()
                .start()) {
            ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
            try {
                assertThat(IdentityGrpc.newBlockingStub(channel)
                                .probe(ProbeRequest.getDefaultInstance())
                                .getReady()
                                .getValue())
                        .isFalse();
            } finally {
                channel.shutdownNow();
            }
        }
        assertThat(log())
                .contains("backend down\\nINFO")
                .doesNotContain("\u001b")
                .doesNotContain("\nINFO io.volrep.spi.runtime.CallRunner - PromoteVolume volume x");
    }

    @Test
    void typedRequestsPrintWithoutSecretValues() {
        ReplicationSource source = ReplicationSource.volume("vol-1");
        Secrets secrets = Secrets.of(SECRETS);
        List<Object> requests = List.of(
                EnableRequest.builder().source(source).secrets(secrets).build(),
                DisableRequest.builder().source(source).secrets(secrets).build(),
                PromoteRequest.builder()
                        .source(source)
                        .secrets(secrets)
                        .force(true)
                        .build(),
                DemoteRequest.builder().source(source).secrets(secrets).build(),
                ResyncRequest.builder().source(source).secrets(secrets).build(),
                InfoRequest.builder()
                        .source(source)
                        .secrets(secrets)
                        .replicationId("rep-1")
                        .build(),
                DestinationRequest.builder().source(source).secrets(secrets).build(),
                CreateGroupRequest.builder().name("g").secrets(secrets).build(),
                ModifyGroupRequest.builder().volumeGroupId("g").secrets(secrets).build(),
                DeleteGroupRequest.builder().volumeGroupId("g").secrets(secrets).build(),
                GetGroupRequest.builder().volumeGroupId("g").secrets(secrets).build(),
                ListGroupsRequest.builder().secrets(secrets).build(),
                HealRequest.builder()
                        .volumeId("vol-1")
                        .volumePath("/p")
                        .secrets(secrets)
                        .build());
        for (Object request : requests) {
            assertThat(request.toString()).contains("password=***").doesNotContain(SECRET);
        }
    }

    @Test
    void volumeGroupCallsAreLoggedTheSameWayAndTheirSecretsNever() {
        String name = InProcessServerBuilder.generateName();
        VolumeGroupDriver groups = new VolumeGroupDriver() {
            @Override
            public VolumeGroup create(CreateGroupRequest r) {
                // A driver that puts the request, secrets and all, into its exception.
                throw new IllegalStateException(
                        "array refused " + r.secrets().get("password").orElse("") + " for " + r.name());
            }

            @Override
            public void delete(DeleteGroupRequest r) {
                throw new PreconditionFailedException("group " + r.volumeGroupId() + " in use; login "
                        + r.secrets().get("password").orElse(""));
            }
        };
        try (ReplicationServer server = ReplicationServer.builder()
                .volumeGroups(groups)
                .listen("inprocess:" + name)
                .build()
                .start()) {
            ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
            try {
                var stub = ControllerGrpc.newBlockingStub(channel);
                Status create = statusOf(() -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("db")
                        .putAllSecrets(SECRETS)
                        .build()));
                Status delete = statusOf(() -> stub.deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("vg-1")
                        .putAllSecrets(SECRETS)
                        .build()));
                assertThat(create.getCode()).isEqualTo(Status.Code.UNKNOWN);
                assertThat(delete.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                assertThat(delete.getDescription()).isEqualTo("group vg-1 in use; login ***");
                assertThat(create.getDescription() + delete.getDescription()).doesNotContain(SECRET);
            } finally {
                channel.shutdownNow();
            }
        }
        String log = log();
        assertThat(log)
                .containsPattern("INFO .* - DeleteVolumeGroup volume group vg-1 -> 9 FAILED_PRECONDITION in \\d+"
                        + " ms: group vg-1 in use; login \\*\\*\\*")
                .containsPattern("ERROR .* - CreateVolumeGroup volume group named db: unexpected"
                        + " java.lang.IllegalStateException from the driver")
                .contains("CreateVolumeGroup request CreateVolumeGroupRequest{")
                .contains("value: \"***\"");
        assertThat(log).doesNotContain(SECRET).doesNotContain("admin-user");
    }
}

package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DemoteVolumeResponse;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.DisableVolumeReplicationResponse;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.PromoteVolumeResponse;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every command that prints what a plugin said, against a plugin whose every text is hostile: clear-screen, an OSC
 * window title, BEL, CR and LF line forging and U+202E (right-to-left override). None of it may reach the terminal
 * raw, and no plugin text may start a line of its own.
 */
class HostilePluginOutputTest {
    /** Clear screen, set the window title, ring, return to column 0, forge a line, flip the text direction. */
    static final String HOSTILE = "\u001b[2J\u001b]0;owned\u0007\rforged\nERROR: forged line\u202etxt.exe";

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    String target;

    @BeforeEach
    void hostilePlugin() throws Exception {
        String name = InProcessServerBuilder.generateName();
        Server server = InProcessServerBuilder.forName(name)
                .directExecutor()
                .addService(new Controller())
                .addService(new Identity())
                .addService(new Healer())
                .build()
                .start();
        grpc.register(server);
        target = "inprocess:" + name;
    }

    /** Nothing raw, and the hostile text shown escaped. */
    static void neutralised(Run run) {
        nothingRaw(run);
        assertThat(run.all()).contains("\\u001b[2J\\u001b]0;owned\\u0007\\rforged\\nERROR: forged line\\u202etxt.exe");
    }

    /** Nothing raw: no control character but our own line ends, no bidi override, no forged line. */
    static void nothingRaw(Run run) {
        for (String stream : List.of(run.out(), run.err())) {
            assertThat(stream).doesNotContain("\u001b", "\u0007", "\r", "\u202e");
            assertThat(stream.lines()).noneMatch(line -> line.startsWith("ERROR: forged line"));
            assertThat(stream.chars().filter(c -> c != '\n' && Character.isISOControl(c)))
                    .isEmpty();
        }
    }

    @Test
    void typedCallsEscapeThePluginsErrorMessage() {
        for (String command : List.of("enable", "disable", "promote", "demote", "resync", "info", "destination")) {
            Run run = volrep(command, "--endpoint", target, "--volume", "vol-0", "--max-attempts", "1");
            assertThat(run.exit()).as(command + ": " + run.all()).isEqualTo(1);
            neutralised(run);
        }
    }

    @Test
    void reconcileAndFailoverEscapeThePluginsErrorMessage() {
        Run reconcile = volrep("reconcile", "--endpoint", target, "--volume", "vol-0", "--state", "primary");
        assertThat(reconcile.exit()).as(reconcile.all()).isEqualTo(1);
        neutralised(reconcile);
        Run failover = volrep("failover", "--from", target, "--to", target, "--volume", "vol-0", "--timeout", "1s");
        assertThat(failover.exit()).as(failover.all()).isEqualTo(1);
        neutralised(failover);
    }

    @Test
    void probeEscapesVersionAndManifest() {
        Run run = volrep("probe", "--endpoint", target);
        assertThat(run.exit()).as(run.all()).isZero();
        neutralised(run);
        assertThat(run.out())
                .contains("name:         " + VALID_NAME)
                .contains("version:      \\u001b[2J")
                .contains("manifest:     \\u001b[2J");
    }

    /** A hostile name breaks the spec's domain-name rule: the answer is refused, and the refusal is escaped too. */
    @Test
    void probeRefusesAHostileNameAndEscapesIt() throws Exception {
        String name = InProcessServerBuilder.generateName();
        grpc.register(InProcessServerBuilder.forName(name)
                .directExecutor()
                .addService(new Identity(HOSTILE))
                .build()
                .start());
        Run run = volrep("probe", "--endpoint", "inprocess:" + name);
        assertThat(run.exit()).as(run.all()).isNotZero();
        // The rule's message quotes the name escaped, and the CLI escapes the whole message once more: still inert.
        nothingRaw(run);
        assertThat(run.err())
                .contains("error: name: MUST be 63 characters or less")
                .contains("forged line");
    }

    @Test
    void healEscapesTheAbnormalMessageAndTheErrorMessage() {
        Run abnormal = volrep("heal", "--endpoint", target, "--volume", "vol-0", "--path", "/mnt/vol-0");
        assertThat(abnormal.exit()).as(abnormal.all()).isEqualTo(HealCommand.EXIT_ABNORMAL);
        neutralised(abnormal);
        assertThat(abnormal.out()).startsWith("abnormal: \\u001b[2J");

        Run failed = volrep(
                "heal", "--endpoint", target, "--volume", "vol-fail", "--path", "/mnt/vol-0", "--max-attempts", "1");
        assertThat(failed.exit()).as(failed.all()).isEqualTo(1);
        neutralised(failed);
    }

    private static <T> void hostile(StreamObserver<T> observer) {
        observer.onError(Status.INTERNAL.withDescription(HOSTILE).asRuntimeException());
    }

    /** Every replication call fails with the hostile description. */
    static final class Controller extends ControllerGrpc.ControllerImplBase {
        @Override
        public void enableVolumeReplication(
                EnableVolumeReplicationRequest r, StreamObserver<EnableVolumeReplicationResponse> o) {
            hostile(o);
        }

        @Override
        public void disableVolumeReplication(
                DisableVolumeReplicationRequest r, StreamObserver<DisableVolumeReplicationResponse> o) {
            hostile(o);
        }

        @Override
        public void promoteVolume(PromoteVolumeRequest r, StreamObserver<PromoteVolumeResponse> o) {
            hostile(o);
        }

        @Override
        public void demoteVolume(DemoteVolumeRequest r, StreamObserver<DemoteVolumeResponse> o) {
            hostile(o);
        }

        @Override
        public void resyncVolume(ResyncVolumeRequest r, StreamObserver<ResyncVolumeResponse> o) {
            hostile(o);
        }

        @Override
        public void getVolumeReplicationInfo(
                GetVolumeReplicationInfoRequest r, StreamObserver<GetVolumeReplicationInfoResponse> o) {
            hostile(o);
        }

        @Override
        public void getReplicationDestinationInfo(
                GetReplicationDestinationInfoRequest r, StreamObserver<GetReplicationDestinationInfoResponse> o) {
            hostile(o);
        }
    }

    /** A name the spec's domain-name rule accepts, for the identity whose other texts are hostile. */
    static final String VALID_NAME = "hostile.example.com";

    /** Identity whose version and manifest (and, if asked, name) are hostile. */
    static final class Identity extends IdentityGrpc.IdentityImplBase {
        private final String name;

        Identity() {
            this(VALID_NAME);
        }

        Identity(String name) {
            this.name = name;
        }

        @Override
        public void getIdentity(GetIdentityRequest r, StreamObserver<GetIdentityResponse> o) {
            o.onNext(GetIdentityResponse.newBuilder()
                    .setName(name)
                    .setVendorVersion(HOSTILE)
                    .putManifest(HOSTILE, HOSTILE)
                    .build());
            o.onCompleted();
        }

        @Override
        public void getCapabilities(GetCapabilitiesRequest r, StreamObserver<GetCapabilitiesResponse> o) {
            o.onNext(GetCapabilitiesResponse.getDefaultInstance());
            o.onCompleted();
        }

        @Override
        public void probe(ProbeRequest r, StreamObserver<ProbeResponse> o) {
            o.onNext(ProbeResponse.getDefaultInstance());
            o.onCompleted();
        }
    }

    /** NodeHealer: abnormal with the hostile message, or the hostile error for {@code vol-fail}. */
    static final class Healer extends HealerNodeGrpc.HealerNodeImplBase {
        @Override
        public void nodeHealer(NodeHealerRequest r, StreamObserver<NodeHealerResponse> o) {
            if (r.getVolumeId().equals("vol-fail")) {
                hostile(o);
                return;
            }
            o.onNext(NodeHealerResponse.newBuilder()
                    .setAbnormal(true)
                    .setMessage(HOSTILE)
                    .build());
            o.onCompleted();
        }
    }
}

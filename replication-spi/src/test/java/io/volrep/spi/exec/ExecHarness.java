package io.volrep.spi.exec;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.volumegroup.ControllerGrpc.ControllerBlockingStub;
import io.volrep.spi.ReplicationServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An {@link ExecDriver} served by the real runtime (in-process, or on a unix socket), a blocking stub to it,
 * and shorthand for the seven RPCs and Identity's capabilities on the generated stubs; {@link #groups()} for the
 * volume group service, served when {@code init} turned it on.
 */
final class ExecHarness implements AutoCloseable {
    final ExecDriver driver;
    final ReplicationServer server;
    final ManagedChannel channel;
    final ControllerGrpc.ControllerBlockingStub stub;

    private ExecHarness(ExecDriver driver, String listen) {
        this.driver = driver;
        ReplicationServer.Builder builder =
                ReplicationServer.builder().driver(driver).listen(listen);
        if (driver.servesVolumeGroups()) {
            builder.volumeGroups(driver); // as serve-exec does: init turned create-group and delete-group on
        }
        this.server = builder.build().start();
        if (listen.startsWith("unix:")) {
            channel = Grpc.newChannelBuilder(server.address(), InsecureChannelCredentials.create())
                    .overrideAuthority("localhost")
                    .build();
        } else {
            channel = InProcessChannelBuilder.forName(listen.substring("inprocess:".length()))
                    .build();
        }
        stub = ControllerGrpc.newBlockingStub(channel);
    }

    /** Serves {@code driver} in-process. */
    static ExecHarness inProcess(ExecDriver driver) {
        return new ExecHarness(driver, "inprocess:" + InProcessServerBuilder.generateName());
    }

    /** Serves {@code driver} on a unix socket at {@code socket}. */
    static ExecHarness unix(ExecDriver driver, Path socket) {
        return new ExecHarness(driver, "unix://" + socket);
    }

    /** A volumegroup.Controller stub with a fresh 30 s deadline. */
    ControllerBlockingStub groups() {
        return io.volrep.proto.volumegroup.ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    /** A stub with a fresh 30 s deadline. */
    ControllerGrpc.ControllerBlockingStub stub() {
        return stub.withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        channel.shutdownNow();
        server.close();
        driver.close();
    }

    /**
     * Shell code printing the pid of the shell that runs it as the host sees it. A driver runs in its own PID
     * namespace, where {@code $$} is 1; /proc there is still the host's, and the shell opens the redirection
     * itself, so /proc/self is the shell.
     */
    static final String HOST_PID = "{ read -r hostpid _ < /proc/self/stat; echo \"$hostpid\"; }";

    /** Writes an executable /bin/sh script. */
    static Path script(Path dir, String name, String body) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    /** A driver whose init succeeds (capabilities all default) and whose other operations run {@code body}. */
    static Path driverScript(Path dir, String body) throws IOException {
        return script(dir, "driver", "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\"}'; exit 0; fi\n" + body);
    }

    static ReplicationSource volume(String id) {
        return ReplicationSource.newBuilder()
                .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(id))
                .build();
    }

    static ReplicationSource group(String id) {
        return ReplicationSource.newBuilder()
                .setVolumegroup(ReplicationSource.VolumeGroupSource.newBuilder().setVolumeGroupId(id))
                .build();
    }

    /** The status a call ended with. */
    static Status statusOf(Runnable call) {
        try {
            call.run();
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    Status enable(ReplicationSource source, Map<String, String> secrets) {
        return statusOf(() -> stub().enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(source)
                .putAllSecrets(secrets)
                .putParameters("mode", "snapshot")
                .build()));
    }

    Status enable(String volume) {
        return enable(volume(volume), Map.of());
    }

    Status disable(ReplicationSource source, Map<String, String> secrets) {
        return statusOf(() -> stub().disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(source)
                .putAllSecrets(secrets)
                .build()));
    }

    Status promote(ReplicationSource source, Map<String, String> secrets) {
        return statusOf(() -> stub().promoteVolume(PromoteVolumeRequest.newBuilder()
                .setReplicationSource(source)
                .putAllSecrets(secrets)
                .build()));
    }

    Status demote(ReplicationSource source, Map<String, String> secrets) {
        return statusOf(() -> stub().demoteVolume(DemoteVolumeRequest.newBuilder()
                .setReplicationSource(source)
                .putAllSecrets(secrets)
                .build()));
    }

    /** ResyncVolume: true/false for ready, or the failure status. */
    Object resync(ReplicationSource source, Map<String, String> secrets) {
        try {
            return stub().resyncVolume(ResyncVolumeRequest.newBuilder()
                            .setReplicationSource(source)
                            .putAllSecrets(secrets)
                            .build())
                    .getReady();
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** GetReplicationDestinationInfo: the response, or the failure status. */
    Object destination(ReplicationSource source, Map<String, String> secrets) {
        try {
            return stub().getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                    .setReplicationSource(source)
                    .putAllSecrets(secrets)
                    .build());
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** The Identity capabilities the server advertises, as protobuf text (for assertions on their presence). */
    String capabilities() {
        return IdentityGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .getCapabilities(GetCapabilitiesRequest.getDefaultInstance())
                .toString();
    }

    /** GetVolumeReplicationInfo: the response, or the failure status. */
    Object info(ReplicationSource source, Map<String, String> secrets) {
        try {
            GetVolumeReplicationInfoResponse r = stub().getVolumeReplicationInfo(
                            GetVolumeReplicationInfoRequest.newBuilder()
                                    .setReplicationSource(source)
                                    .putAllSecrets(secrets)
                                    .build());
            return r;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }
}

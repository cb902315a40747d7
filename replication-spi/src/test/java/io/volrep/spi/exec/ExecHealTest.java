package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.script;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.spi.ReplicationServer;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code heal}: NodeHealer through the bridge, opted into by init. */
class ExecHealTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    private static final NodeHealerRequest REQUEST = NodeHealerRequest.newBuilder()
            .setVolumeId("vol-1")
            .setVolumePath("/var/lib/kubelet/pods/p/volumes/v")
            .setStagingTargetPath("/staging/vol-1")
            .setVolumeCapability(VolumeCapability.newBuilder()
                    .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
                    .setAccessMode(VolumeCapability.AccessMode.newBuilder()
                            .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)))
            .putSecrets("token", "heal-s3cret")
            .putVolumeContext("pool", "fast")
            .build();

    private Object heal(ExecDriver driver) {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .healer(driver)
                .listen("inprocess:" + name)
                .build()
                .start());
        ManagedChannel channel =
                grpc.register(InProcessChannelBuilder.forName(name).build());
        try {
            return HealerNodeGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .nodeHealer(REQUEST);
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    @Test
    void healRunsWhenInitOptsIn() throws Exception {
        Path args = dir.resolve("args");
        Path stdin = dir.resolve("stdin");
        Path driver = script(
                dir,
                "driver",
                "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\","
                        + "\"capabilities\":{\"heal\":true}}'; exit 0; fi\n"
                        + "printf '%s\\n' \"$@\" > " + args + "; cat > " + stdin + "\n"
                        + "echo '{\"status\":\"Success\",\"abnormal\":true,\"message\":\"read-only: remounted\"}'");
        ExecDriver d = grpc.register(ExecDriver.builder().executable(driver).build());
        assertThat(d.servesHealer()).isTrue();
        Object answer = heal(d);
        assertThat(answer)
                .isEqualTo(NodeHealerResponse.newBuilder()
                        .setAbnormal(true)
                        .setMessage("read-only: remounted")
                        .build());
        assertThat(Files.readAllLines(args))
                .containsExactly(
                        "heal",
                        "{\"volumeId\":\"vol-1\",\"volumePath\":"
                                + "\"/var/lib/kubelet/pods/p/volumes/v\",\"stagingTargetPath\":\"/staging/vol-1\",\"volumeCapability\":"
                                + "{\"mount\":{\"fsType\":\"ext4\"},\"accessMode\":{\"mode\":\"SINGLE_NODE_WRITER\"}},"
                                + "\"volumeContext\":{\"pool\":\"fast\"}}");
        assertThat(Files.readString(stdin)).isEqualTo("{\"token\":\"heal-s3cret\"}");
    }

    @Test
    void healIsUnimplementedByDefaultAndChecked() throws Exception {
        Path calls = dir.resolve("calls");
        Path plain = script(dir, "plain", "echo \"$1\" >> " + calls + "; echo '{\"status\":\"Success\"}'");
        ExecDriver d = grpc.register(ExecDriver.builder().executable(plain).build());
        assertThat(d.servesHealer()).isFalse();
        assertThat(heal(d))
                .isInstanceOfSatisfying(
                        Status.class, s -> assertThat(s.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
        assertThat(Files.readAllLines(calls)).containsExactly("init");
        Path noMessage = script(
                dir,
                "nomessage",
                "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\","
                        + "\"capabilities\":{\"heal\":true}}'; exit 0; fi\necho '{\"status\":\"Success\",\"abnormal\":false}'");
        ExecDriver d2 = grpc.register(ExecDriver.builder().executable(noMessage).build());
        assertThat(heal(d2)).isInstanceOfSatisfying(Status.class, s -> {
            assertThat(s.getCode()).isEqualTo(Status.Code.UNKNOWN);
            assertThat(s.getDescription()).contains("(heal)", "\"message\" (message: REQUIRED but empty)");
        });
    }
}

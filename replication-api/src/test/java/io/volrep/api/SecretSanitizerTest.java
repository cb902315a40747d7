package io.volrep.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Message;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretSanitizerTest {
    static final String SECRET = "s3cr3t-Value-42";
    static final Map<String, String> SECRETS = Map.of("user", "admin-" + SECRET, "password", SECRET);
    static final ReplicationSource SOURCE = ReplicationSource.newBuilder()
            .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId("vol-1"))
            .build();

    static List<Message> everyRequestType() {
        return List.of(
                EnableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(SOURCE)
                        .putAllSecrets(SECRETS)
                        .putParameters("mode", "snapshot")
                        .build(),
                DisableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(SOURCE)
                        .putAllSecrets(SECRETS)
                        .build(),
                PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(SOURCE)
                        .setForce(true)
                        .putAllSecrets(SECRETS)
                        .build(),
                DemoteVolumeRequest.newBuilder()
                        .setReplicationSource(SOURCE)
                        .putAllSecrets(SECRETS)
                        .build(),
                ResyncVolumeRequest.newBuilder()
                        .setReplicationSource(SOURCE)
                        .putAllSecrets(SECRETS)
                        .build(),
                GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(SOURCE)
                        .putAllSecrets(SECRETS)
                        .build(),
                NodeHealerRequest.newBuilder()
                        .setVolumeId("vol-1")
                        .setVolumePath("/mnt/v")
                        .putAllSecrets(SECRETS)
                        .putVolumeContext("pool", "rbd")
                        .setVolumeCapability(VolumeCapability.newBuilder()
                                .setMount(VolumeCapability.MountVolume.newBuilder()
                                        .setFsType("ext4")))
                        .build());
    }

    @Test
    void masksTheSecretsOfEveryRequestTypeAndKeepsTheRest() {
        for (Message request : everyRequestType()) {
            String printed = SecretSanitizer.toString(request);
            assertThat(printed)
                    .as(request.getDescriptorForType().getName())
                    .doesNotContain(SECRET)
                    .contains("user")
                    .contains("password")
                    .contains(Secrets.MASK);
            assertThat(printed).contains(request instanceof NodeHealerRequest ? "/mnt/v" : "vol-1");
            assertThat(SecretSanitizer.lazy(request).toString()).isEqualTo(printed);

            Message copy = SecretSanitizer.sanitize(request);
            assertThat(copy.toString()).doesNotContain(SECRET);
            assertThat(copy.getDescriptorForType()).isEqualTo(request.getDescriptorForType());
        }
    }

    @Test
    void detectsTheMarkersOnTheRealFields() {
        var secrets = EnableVolumeReplicationRequest.getDescriptor().findFieldByName("secrets");
        var parameters = EnableVolumeReplicationRequest.getDescriptor().findFieldByName("parameters");
        assertThat(SecretSanitizer.isSecret(secrets)).isTrue();
        assertThat(SecretSanitizer.isSecret(parameters)).isFalse();
        assertThat(SecretSanitizer.isSecret(NodeHealerRequest.getDescriptor().findFieldByName("volume_context")))
                .isFalse();
    }

    @Test
    void leavesNonSecretMapsAndNestedMessagesReadable() {
        var request = NodeHealerRequest.newBuilder()
                .setVolumeId("vol-1")
                .setVolumePath("/p")
                .putVolumeContext("pool", "rbd")
                .putSecrets("k", SECRET)
                .setVolumeCapability(VolumeCapability.newBuilder()
                        .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4")))
                .build();
        NodeHealerRequest copy = SecretSanitizer.sanitize(request);
        assertThat(copy.getSecretsMap()).containsExactly(Map.entry("k", Secrets.MASK));
        assertThat(copy.getVolumeContextMap()).containsExactly(Map.entry("pool", "rbd"));
        assertThat(copy.getVolumeCapability().getMount().getFsType()).isEqualTo("ext4");
        assertThat(request.getSecretsMap()).containsEntry("k", SECRET); // the original is untouched
    }

    @Test
    void dropsUnknownFieldsThatCouldHoldSecrets() throws Exception {
        // field 99, LEN "s3cr3t-Value-42": a secret in a field this runtime does not know
        byte[] unknown = ByteString.copyFromUtf8(SECRET).toByteArray();
        var out = new ByteArrayOutputStream();
        var cos = CodedOutputStream.newInstance(out);
        cos.writeByteArray(99, unknown);
        cos.flush();
        var parsed = PromoteVolumeRequest.parseFrom(out.toByteArray());
        assertThat(parsed.toString()).contains("99");
        assertThat(SecretSanitizer.toString(parsed)).doesNotContain(SECRET).doesNotContain("99");
    }

    @Test
    void secretsToStringNeverShowsValues() {
        Secrets secrets = Secrets.of(SECRETS);
        assertThat(secrets.toString())
                .isEqualTo("Secrets[password=***, user=***]")
                .doesNotContain(SECRET);
        assertThat(secrets.get("password")).contains(SECRET);
    }

    @Test
    void masksTheLegacyReplicationSecretOption() {
        var v010 = io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationRequest.newBuilder()
                .setVolumeId("vol-1")
                .putAllSecrets(SECRETS)
                .build();
        var v013 = io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoRequest.newBuilder()
                .setVolumeId("vol-1")
                .putAllSecrets(SECRETS)
                .build();
        assertThat(SecretSanitizer.isSecret(v010.getDescriptorForType().findFieldByName("secrets")))
                .isTrue();
        assertThat(SecretSanitizer.toString(v010))
                .doesNotContain(SECRET)
                .contains("vol-1")
                .contains(Secrets.MASK);
        assertThat(SecretSanitizer.toString(v013))
                .doesNotContain(SECRET)
                .contains("vol-1")
                .contains(Secrets.MASK);
    }
}

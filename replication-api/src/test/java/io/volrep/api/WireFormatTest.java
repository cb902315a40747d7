package io.volrep.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Pins the wire format to the seed's field numbers. The expected bytes were worked out by hand:
 * tag = (field number << 3) | wire type (0 varint, 2 length-delimited).
 */
class WireFormatTest {

    @Test
    void enableRequestWithVolumeSourceMatchesHandEncodedBytes() {
        var request = EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(ReplicationSource.newBuilder()
                        .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId("vol-1")))
                .build();
        // 2a = field 5 (replication_source), LEN; 09 = 9 bytes
        //   0a = field 1 (volume), LEN; 07 = 7 bytes
        //     0a = field 1 (volume_id), LEN; 05; "vol-1" = 76 6f 6c 2d 31
        assertThat(hex(request.toByteArray())).isEqualTo("2a090a070a05766f6c2d31");
    }

    @Test
    void promoteRequestWithForceMatchesHandEncodedBytes() {
        var request = PromoteVolumeRequest.newBuilder().setForce(true).build();
        // 10 = field 2 (force), VARINT; 01 = true
        assertThat(hex(request.toByteArray())).isEqualTo("1001");
    }

    @Test
    void sourceKindsUseTheCurrentRevisionsNumbers() {
        var group = ReplicationSource.newBuilder()
                .setVolumegroup(ReplicationSource.VolumeGroupSource.newBuilder().setVolumeGroupId("g"))
                .build();
        var snapshot = ReplicationSource.newBuilder()
                .setVolumesnapshot(
                        ReplicationSource.VolumeSnapshotSource.newBuilder().setVolumeSnapshotId("s"))
                .build();
        // volumegroup = 2 -> tag 12; volumesnapshot = 3 -> tag 1a
        assertThat(hex(group.toByteArray())).isEqualTo("12030a0167");
        assertThat(hex(snapshot.toByteArray())).isEqualTo("1a030a0173");
    }

    @Test
    @SuppressWarnings("deprecation")
    void infoRequestNumbersItsFieldsDifferently() {
        var request = GetVolumeReplicationInfoRequest.newBuilder()
                .setVolumeId("v")
                .setReplicationId("r")
                .build();
        // volume_id = 1 -> 0a; replication_id = 3 -> 1a
        assertThat(hex(request.toByteArray())).isEqualTo("0a01761a0172");
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}

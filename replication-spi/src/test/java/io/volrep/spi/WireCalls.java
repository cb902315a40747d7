package io.volrep.spi;

import io.volrep.api.Rpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import java.util.Map;

/** Builds and sends any of the six replication requests from the same fields. */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
final class WireCalls {
    private WireCalls() {}

    /** The request fields the runtime validates; null means "not set". */
    record Fields(
            String volumeId,
            ReplicationSource source,
            Map<String, String> parameters,
            Map<String, String> secrets,
            String replicationId) {
        static Fields volume(String id) {
            return new Fields(
                    null,
                    ReplicationSource.newBuilder()
                            .setVolume(
                                    ReplicationSource.VolumeSource.newBuilder().setVolumeId(id))
                            .build(),
                    null,
                    null,
                    null);
        }

        static Fields group(String id) {
            return new Fields(
                    null,
                    ReplicationSource.newBuilder()
                            .setVolumegroup(ReplicationSource.VolumeGroupSource.newBuilder()
                                    .setVolumeGroupId(id))
                            .build(),
                    null,
                    null,
                    null);
        }

        Fields withVolumeId(String v) {
            return new Fields(v, source, parameters, secrets, replicationId);
        }

        Fields withSource(ReplicationSource s) {
            return new Fields(volumeId, s, parameters, secrets, replicationId);
        }

        Fields withParameters(Map<String, String> p) {
            return new Fields(volumeId, source, p, secrets, replicationId);
        }

        Fields withSecrets(Map<String, String> s) {
            return new Fields(volumeId, source, parameters, s, replicationId);
        }

        Fields withReplicationId(String r) {
            return new Fields(volumeId, source, parameters, secrets, r);
        }
    }

    /** Sends {@code rpc} with {@code f}; throws StatusRuntimeException on a non-OK status. */
    static Object call(ControllerGrpc.ControllerBlockingStub stub, Rpc rpc, Fields f) {
        Map<String, String> params = f.parameters() == null ? Map.of() : f.parameters();
        Map<String, String> secrets = f.secrets() == null ? Map.of() : f.secrets();
        String volumeId = f.volumeId() == null ? "" : f.volumeId();
        String replicationId = f.replicationId() == null ? "" : f.replicationId();
        switch (rpc) {
            case ENABLE_VOLUME_REPLICATION -> {
                var b = EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .putAllParameters(params)
                        .putAllSecrets(secrets)
                        .setReplicationId(replicationId);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.enableVolumeReplication(b.build());
            }
            case DISABLE_VOLUME_REPLICATION -> {
                var b = DisableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .putAllParameters(params)
                        .putAllSecrets(secrets)
                        .setReplicationId(replicationId);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.disableVolumeReplication(b.build());
            }
            case PROMOTE_VOLUME -> {
                var b = PromoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .putAllParameters(params)
                        .putAllSecrets(secrets)
                        .setReplicationId(replicationId)
                        .setForce(true);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.promoteVolume(b.build());
            }
            case DEMOTE_VOLUME -> {
                var b = DemoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .putAllParameters(params)
                        .putAllSecrets(secrets)
                        .setReplicationId(replicationId);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.demoteVolume(b.build());
            }
            case RESYNC_VOLUME -> {
                var b = ResyncVolumeRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .putAllParameters(params)
                        .putAllSecrets(secrets)
                        .setReplicationId(replicationId);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.resyncVolume(b.build());
            }
            case GET_VOLUME_REPLICATION_INFO -> {
                var b = GetVolumeReplicationInfoRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .putAllSecrets(secrets)
                        .setReplicationId(replicationId);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.getVolumeReplicationInfo(b.build());
            }
            case GET_REPLICATION_DESTINATION_INFO -> {
                // Upstream's message: no volume_id, parameters or replication_id.
                var b = GetReplicationDestinationInfoRequest.newBuilder().putAllSecrets(secrets);
                if (f.source() != null) {
                    b.setReplicationSource(f.source());
                }
                return stub.getReplicationDestinationInfo(b.build());
            }
            default -> throw new IllegalArgumentException("not a replication RPC: " + rpc);
        }
    }
}

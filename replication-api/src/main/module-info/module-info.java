/**
 * The CSI-Addons replication spec and its companions (NodeHealer, volume groups, Identity) as data: the typed
 * model ({@code io.volrep.api}), the error scheme, the spec revisions. The generated protobuf and gRPC classes ({@code io.volrep.proto.*}, the spec's wire messages) are
 * exported as a documented escape hatch for wire-level work; the client's and SPI's exported signatures never use
 * them, and any other exported signature that does is marked {@link io.volrep.api.WireLevel}. The wire mapping
 * ({@code io.volrep.api.internal.wire}) and the helpers in {@code io.volrep.api.internal} (argument checks, text escaping,
 * unix targets) are internal: exported only to volrep's own modules.
 */
module io.volrep.api {
    requires transitive com.google.protobuf;
    requires transitive io.grpc;
    requires io.grpc.protobuf;
    // The exported generated stubs extend io.grpc.stub types: whoever reads this module reads that one too.
    requires transitive io.grpc.stub;
    requires static com.google.common;

    exports io.volrep.api;
    exports io.volrep.api.internal to
            io.volrep.client,
            io.volrep.spi,
            io.volrep.testkit,
            io.volrep.micrometer,
            io.volrep.ceph;
    exports io.volrep.api.internal.wire to
            io.volrep.client,
            io.volrep.spi,
            io.volrep.testkit;
    exports io.volrep.proto.replication;
    exports io.volrep.proto.replication.v0_1_3;
    exports io.volrep.proto.replication.v0_1_0;
    exports io.volrep.proto.healer;
    exports io.volrep.proto.identity;
    exports io.volrep.proto.csi;
    exports io.volrep.proto.volumegroup;
}

/**
 * The volrep server runtime for storage vendors: implement {@code io.volrep.spi.ReplicationDriver} (and
 * {@code HealerDriver}), serve it with {@code io.volrep.spi.ReplicationServer}; or serve an executable through
 * {@code io.volrep.spi.exec.ExecDriver}.
 *
 * <pre>{@code
 * module my.plugin {
 *     requires io.volrep.spi;
 *     provides io.volrep.spi.ReplicationDriverProvider with my.plugin.MyDriverProvider;
 * }
 * }</pre>
 * {@code io.volrep.spi.internal.runtime} (the call pipeline) is exported only to volrep's own modules.
 * {@code ReplicationServer.Builder.interceptor(io.grpc.ServerInterceptor)} is the escape hatch to gRPC.
 */
module io.volrep.spi {
    requires transitive io.volrep.api;
    requires transitive io.grpc;
    requires io.grpc.inprocess;
    requires io.grpc.netty.shaded;
    requires io.grpc.util;
    requires com.google.protobuf.util;
    requires com.google.gson;
    requires org.slf4j;
    // ReplicationServer looks at gRPC's frame loggers through java.util.logging too (Netty's fallback).
    requires java.logging;
    // ServeUntilSignal handles SIGTERM/SIGINT through sun.misc.Signal.
    requires jdk.unsupported;

    exports io.volrep.spi;
    exports io.volrep.spi.exec;
    exports io.volrep.spi.internal.runtime to
            io.volrep.testkit,
            io.volrep.micrometer;
    // The process runner of the exec bridge, for volrep's own drivers that run a storage CLI.
    exports io.volrep.spi.exec.internal to
            io.volrep.ceph;
    exports io.volrep.proto.exec to
            com.google.protobuf;

    uses io.volrep.spi.ReplicationDriverProvider;
}

/**
 * The volrep client for orchestrators: {@code io.volrep.client.ReplicationClient} and its typed calls.
 *
 * <pre>{@code
 * module my.orchestrator {
 *     requires io.volrep.client;
 * }
 * }</pre>
 * {@code ReplicationClient.Builder.interceptor(io.grpc.ClientInterceptor)} is the one gRPC type in the API, an
 * escape hatch for tracing; no generated protobuf type appears in an exported signature.
 */
module io.volrep.client {
    requires transitive io.volrep.api;
    requires transitive io.grpc;
    requires io.grpc.inprocess;
    requires io.grpc.netty.shaded;
    // MoreExecutors.directExecutor(): the one executor gRPC recognises as direct (no SerializingExecutor per call)
    requires com.google.common;
    requires org.slf4j;

    exports io.volrep.client;
    exports io.volrep.client.reconcile;
}

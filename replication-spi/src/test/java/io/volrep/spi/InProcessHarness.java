package io.volrep.spi;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.proto.replication.ControllerGrpc;
import java.util.concurrent.TimeUnit;

/** A server with a driver on the in-process transport, and a blocking stub to it. */
final class InProcessHarness implements AutoCloseable {
    final ReplicationServer server;
    final ManagedChannel channel;
    final ControllerGrpc.ControllerBlockingStub stub;

    InProcessHarness(ReplicationDriver driver) {
        String name = InProcessServerBuilder.generateName();
        server = ReplicationServer.builder()
                .driver(driver)
                .listen("inprocess:" + name)
                .build()
                .start();
        channel = InProcessChannelBuilder.forName(name).build();
        stub = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
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

    @Override
    public void close() {
        channel.shutdownNow();
        server.close();
    }
}

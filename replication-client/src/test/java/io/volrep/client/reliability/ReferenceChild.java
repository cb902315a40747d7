package io.volrep.client.reliability;

import io.volrep.api.ReplicationSource;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * The reference plugin as a separate process, for {@link FaultTest}: serves a {@link ReferenceDriver} with
 * {@code VOLUMES} volumes on {@code unix://SOCKET} and appends one line per call the driver completed to
 * {@code OPLOG} (the call's {@value #OP_PARAMETER} parameter, the RPC and the source) before the answer is sent.
 * Each line is written with one {@code write(2)}, so it survives a SIGKILL of this process. Prints
 * {@code listening on <address>} when ready, then serves until killed.
 *
 * <pre>{@code
 * java -cp <test class path> io.volrep.client.reliability.ReferenceChild /tmp/x/ref.sock /tmp/x/ops-1.log 200
 * }</pre>
 */
public final class ReferenceChild {
    /** The request parameter that names an operation, so the log can be matched to the client's successes. */
    static final String OP_PARAMETER = "op";

    private ReferenceChild() {
    }

    public static void main(String[] args) throws Exception {
        String socket = args[0];
        String opLog = args[1];
        int volumes = Integer.parseInt(args[2]);
        ReferenceDriver reference = ReferenceDriver.builder().volumes(volumes).build();
        try (FileOutputStream log = new FileOutputStream(opLog, true)) {
            ReplicationServer server = ReplicationServer.builder().driver(new Recording(reference, log))
                    .listen("unix://" + socket).gracePeriod(ReferencePlugin.DEFAULT_GRACE_PERIOD).build().start();
            System.out.println("listening on " + server.address());
            System.out.flush();
            server.awaitTermination();
        }
    }

    /** Delegates to the reference and records each completed call. */
    private static final class Recording implements ReplicationDriver {
        private final ReferenceDriver delegate;
        private final FileOutputStream log;

        Recording(ReferenceDriver delegate, FileOutputStream log) {
            this.delegate = delegate;
            this.log = log;
        }

        @Override
        public void enable(EnableRequest request) {
            delegate.enable(request);
            record("enable", request.source(), request.parameters());
        }

        @Override
        public void disable(DisableRequest request) {
            delegate.disable(request);
            record("disable", request.source(), request.parameters());
        }

        @Override
        public void promote(PromoteRequest request) {
            delegate.promote(request);
            record("promote", request.source(), request.parameters());
        }

        @Override
        public void demote(DemoteRequest request) {
            delegate.demote(request);
            record("demote", request.source(), request.parameters());
        }

        @Override
        public ResyncResult resync(ResyncRequest request) {
            ResyncResult result = delegate.resync(request);
            record("resync", request.source(), request.parameters());
            return result;
        }

        @Override
        public io.volrep.api.ReplicationInfo info(InfoRequest request) {
            return delegate.info(request);
        }

        @Override
        public Set<ReplicationSource.Kind> supportedSourceKinds() {
            return delegate.supportedSourceKinds();
        }

        private void record(String rpc, ReplicationSource source, Map<String, String> parameters) {
            byte[] line = (parameters.getOrDefault(OP_PARAMETER, "-") + " " + rpc + " " + source.id() + "\n")
                    .getBytes(StandardCharsets.UTF_8);
            try {
                synchronized (log) {
                    log.write(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

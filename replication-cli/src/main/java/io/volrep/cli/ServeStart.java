package io.volrep.cli;

import io.volrep.api.internal.SafeText;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServeUntilSignal;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * How {@code serve-reference} and {@code serve-exec} start listening, and fail to: an address that cannot be
 * served (a live plugin on the socket, a port in use, a bad address) is one line on stderr and exit status 2,
 * never a stack trace.
 *
 * <pre>{@code
 * try {
 *     server = ServeStart.start(builder.listen(listen));
 * } catch (ServeStart.CannotListen e) {
 *     return ServeStart.report(spec, e);
 * }
 * }</pre>
 */
final class ServeStart {
    /** The exit status when the server cannot listen. */
    static final int CANNOT_LISTEN = 2;

    private ServeStart() {}

    /** The server could not be built for its address or could not bind it. */
    static final class CannotListen extends RuntimeException {
        CannotListen(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * Builds and starts the server.
     *
     * @throws CannotListen when the address is invalid or cannot be bound
     */
    static ReplicationServer start(ReplicationServer.Builder builder) {
        try {
            return builder.build().start();
        } catch (IllegalStateException | IllegalArgumentException | UncheckedIOException e) {
            throw new CannotListen(e);
        }
    }

    /**
     * A server and the driver behind it, closed together: the server drains first (calls in flight finish within its
     * grace period), then the driver releases what remains (processes still running are killed).
     *
     * @param server the started server
     * @param driver the driver it serves
     */
    record Served<D extends AutoCloseable>(ReplicationServer server, D driver) implements AutoCloseable {
        @Override
        public void close() {
            // The server first, then the driver, whatever the server's close threw (then the driver's is suppressed).
            try (AutoCloseable closedSecond = driver) {
                server.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing " + driver + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Starts the metrics endpoint (when asked for) and serves until SIGTERM or SIGINT, then closes {@code served}:
     * exit 0 after a clean drain; 1, with one line naming the command, when the endpoint cannot start.
     */
    static int serveUntilSignal(CommandLine.Model.CommandSpec spec, MetricsOptions metrics, Served<?> served)
            throws InterruptedException {
        MetricsOptions.Endpoint endpoint;
        try {
            endpoint = metrics.startAnnounced(spec.commandLine().getErr());
        } catch (RuntimeException e) {
            served.close();
            PrintWriter err = spec.commandLine().getErr();
            err.println("volrep " + spec.name() + ": " + e.getMessage());
            err.flush();
            return 1;
        }
        return ServeUntilSignal.run(
                served.server(),
                endpoint.after(served::close),
                spec.commandLine().getOut());
    }

    /** Prints {@code volrep <command>: <why>} and returns {@link #CANNOT_LISTEN}. */
    static int report(CommandLine.Model.CommandSpec spec, CannotListen e) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("volrep " + spec.name() + ": " + SafeText.escape(e.getMessage()));
        err.flush();
        return CANNOT_LISTEN;
    }
}

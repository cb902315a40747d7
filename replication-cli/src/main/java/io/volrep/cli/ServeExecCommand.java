package io.volrep.cli;

import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServeUntilSignal;
import io.volrep.spi.exec.ExecDriver;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code volrep serve-exec}: serves a driver executable that follows the exec protocol (docs/exec-drivers.md)
 * as a replication plugin until SIGTERM or SIGINT.
 *
 * <pre>
 * volrep serve-exec --driver examples/exec-driver/volrep-exec-example --listen unix:///tmp/exec.sock --timeout 30s
 * </pre>
 */
@Command(name = "serve-exec",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {"Serve a driver executable (exec protocol: <driver> <operation> <request-json>, secrets on "
                + "stdin, one JSON object on stdout; see docs/exec-drivers.md) as a CSI-Addons replication plugin "
                + "until SIGTERM or SIGINT.",
                "Runs the driver's init once, then prints 'listening on <address>'. Also serves NodeHealer when "
                        + "init declares \"heal\": true. Exit status 1 when the driver cannot be initialized, 2 when the "
                        + "address cannot be used; 0 after a clean drain on SIGTERM or SIGINT."})
public final class ServeExecCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--driver", paramLabel = "PATH", required = true,
            description = "The driver executable.")
    Path driver;

    @Option(names = "--listen", paramLabel = "URI", required = true, converter = Endpoint.ListenConverter.class,
            description = "unix:///path or /path (e.g. /csi/csi-addons.sock, in an existing directory), host:port "
                    + "(port 0 picks one).")
    String listen;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long one driver call may run before its process tree is killed and the call answers "
                    + "DEADLINE_EXCEEDED (30s, 2m, PT30S; default ${DEFAULT-VALUE}).")
    Duration timeout = ExecDriver.DEFAULT_TIMEOUT;

    @Option(names = "--env", paramLabel = "NAME=VALUE",
            description = "An environment variable for the driver (configuration only, never secrets: those reach "
                    + "the driver on stdin). Repeatable.")
    Map<String, String> environment = new LinkedHashMap<>();

    @Option(names = "--grace-period", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long shutdown lets calls in flight finish (default ${DEFAULT-VALUE}).")
    Duration gracePeriod = Duration.ofSeconds(10);

    @Override
    public Integer call() throws InterruptedException {
        Started started;
        try {
            started = start();
        } catch (CannotListen e) {
            return VolrepCommand.cannotStart(spec, e.getCause());      // an address problem: exit 2
        } catch (IllegalStateException | IllegalArgumentException | java.io.UncheckedIOException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("volrep serve-exec: " + e.getMessage());
            err.flush();
            return 1;
        }
        // As serve-reference: SIGTERM/SIGINT drain the server, then the driver processes still running (past the
        // grace period) are killed, and the command exits 0.
        return ServeUntilSignal.run(started.server(), started::close, spec.commandLine().getOut());
    }

    /** The server and its driver, closed together: the server drains first, then the driver kills what remains. */
    record Started(ReplicationServer server, ExecDriver driver) implements AutoCloseable {
        @Override
        public void close() {
            try {
                server.close();
            } finally {
                driver.close();
            }
        }
    }

    /** The server could not bind its address (the driver is fine). */
    static final class CannotListen extends RuntimeException {
        CannotListen(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Initializes the driver and starts serving it (tests use this without waiting for a signal). */
    Started start() {
        ExecDriver.Builder b = ExecDriver.builder().executable(driver).timeout(timeout);
        environment.forEach(b::environment);
        ExecDriver execDriver = b.build();
        try {
            ReplicationServer.Builder server = ReplicationServer.builder().driver(execDriver).listen(listen)
                    .gracePeriod(gracePeriod);
            if (execDriver.servesHealer()) {
                server.healer(execDriver);      // init declared "heal": true
            }
            try {
                return new Started(server.build().start(), execDriver);
            } catch (IllegalStateException | java.io.UncheckedIOException e) {
                throw new CannotListen(e);
            }
        } catch (RuntimeException e) {
            execDriver.close();
            throw e;
        }
    }
}

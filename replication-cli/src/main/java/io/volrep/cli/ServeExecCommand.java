package io.volrep.cli;

import io.volrep.api.internal.SafeText;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.exec.ExecDriver;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code volrep serve-exec}: serves a driver executable that follows the exec protocol (docs/exec-drivers.md)
 * as a replication plugin until SIGTERM or SIGINT.
 *
 * <pre>
 * volrep serve-exec --driver examples/exec-driver/volrep-exec-example --listen unix:///tmp/exec.sock --timeout 30s
 * </pre>
 */
@Command(
        name = "serve-exec",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Serve a driver executable (exec protocol: <driver> <operation> <request-json>, secrets on "
                    + "stdin, one JSON object on stdout; see docs/exec-drivers.md) as a CSI-Addons replication plugin "
                    + "until SIGTERM or SIGINT.",
            "Runs the driver's init once, then prints 'listening on <address>'. Also serves NodeHealer when "
                    + "init declares \"heal\": true. Exit status 1 when the driver cannot be initialized, 2 when the "
                    + "address cannot be used; 0 after a clean drain on SIGTERM or SIGINT."
        })
public final class ServeExecCommand extends DriverServeCommand<ExecDriver> {

    @Option(names = "--driver", paramLabel = "PATH", required = true, description = "The driver executable.")
    Path driver;

    @Option(
            names = "--listen",
            paramLabel = "URI",
            required = true,
            converter = Endpoint.ListenConverter.class,
            description = "unix:///path or /path (e.g. /csi/csi-addons.sock, in an existing directory), host:port "
                    + "(port 0 picks one).")
    String listen;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long one driver call may run before its process tree is killed and the call answers "
                    + "DEADLINE_EXCEEDED (30s, 2m, PT30S; default ${DEFAULT-VALUE}, because a storage command that has "
                    + "not answered by then is stuck, and a caller retries DEADLINE_EXCEEDED).")
    Duration timeout = ExecDriver.DEFAULT_TIMEOUT;

    @Option(
            names = "--env",
            paramLabel = "NAME=VALUE",
            description = "An environment variable for the driver (configuration only, never secrets: those reach "
                    + "the driver on stdin). Repeatable.")
    Map<String, String> environment = new LinkedHashMap<>();

    @Option(
            names = "--pass-env",
            paramLabel = "NAME",
            description = "Pass this variable of the server's environment to the driver; repeatable. By default a"
                    + " driver gets only PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ and TMPDIR of it (and --env values):"
                    + " credentials in the server's environment stay there.")
    List<String> passEnv = new ArrayList<>();

    @Option(
            names = "--max-concurrent-drivers",
            paramLabel = "N",
            description = "The most driver processes that run at once (default: 4 per processor, at least 4; "
                    + "here ${DEFAULT-VALUE}). A call beyond it waits for a slot until shortly before its deadline or "
                    + "for --timeout, whichever comes first, and answers UNAVAILABLE (retryable) when none frees.")
    int maxConcurrentDrivers = ExecDriver.defaultMaxConcurrentDrivers();

    @Option(
            names = "--containment",
            paramLabel = "auto|required|off",
            converter = ContainmentConverter.class,
            description = "auto (default): each call's driver runs in its own PID namespace, so no process it "
                    + "starts (daemons included) outlives the call, its timeout or the server; falls back to "
                    + "killing the driver's descendants, with a warning, where namespaces are unavailable. "
                    + "required: exit 1 where they are unavailable. off: descendants only; processes a driver "
                    + "leaves behind keep running.")
    ExecDriver.Containment containment = ExecDriver.Containment.AUTO;

    @Mixin
    ServeOptions serveOptions = serve;

    /**
     * A driver that cannot be initialized (its init failed or said something unusable) is one line on stderr, exit
     * status 1. As serve-reference: SIGTERM/SIGINT drain the server, then the driver processes still running (past
     * the grace period) are killed, and the command exits 0.
     */
    @Override
    int cannotStart(RuntimeException e) {
        if (!(e instanceof IllegalStateException
                || e instanceof IllegalArgumentException
                || e instanceof UncheckedIOException)) {
            throw e;
        }
        PrintWriter err = err();
        // May quote what the driver printed at init: escaped.
        err.println("volrep serve-exec: " + SafeText.escape(e.getMessage()));
        err.flush();
        return 1;
    }

    /** {@code auto}, {@code required}, {@code off}, in any case. */
    static final class ContainmentConverter extends EnumConverter<ExecDriver.Containment> {
        ContainmentConverter() {
            super(ExecDriver.Containment.class, "containment", "auto, required or off");
        }
    }

    /** Initializes the driver and starts serving it (tests use this without waiting for a signal). */
    @Override
    ServeStart.Served<ExecDriver> start() {
        if (maxConcurrentDrivers < 1) {
            throw usageError("--max-concurrent-drivers must be at least 1: " + maxConcurrentDrivers);
        }
        ExecDriver.Builder b = ExecDriver.builder()
                .executable(driver)
                .timeout(timeout)
                .maxConcurrentDrivers(maxConcurrentDrivers)
                .containment(containment);
        environment.forEach(b::environment);
        try {
            passEnv.forEach(b::passEnvironment);
        } catch (IllegalArgumentException e) {
            throw usageError("--pass-env: " + e.getMessage());
        }
        ExecDriver execDriver = b.build();
        try {
            ReplicationServer.Builder server = serve.metrics.bind(
                    ReplicationServer.builder()
                            .driver(execDriver)
                            .listen(listen)
                            .gracePeriod(serve.gracePeriod),
                    execDriver);
            if (execDriver.servesHealer()) {
                server.healer(execDriver); // init declared "heal": true
            }
            if (execDriver.servesVolumeGroups()) {
                server.volumeGroups(execDriver); // init turned create-group and delete-group on
            }
            return new ServeStart.Served<>(ServeStart.start(server), execDriver);
        } catch (RuntimeException e) {
            execDriver.close();
            throw e;
        }
    }
}

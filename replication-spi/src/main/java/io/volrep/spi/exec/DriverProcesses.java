package io.volrep.spi.exec;

import io.volrep.api.DeadlineExceededException;
import io.volrep.api.Secrets;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnknownErrorException;
import io.volrep.api.internal.SafeText;
import io.volrep.proto.exec.Response;
import io.volrep.spi.CallDeadline;
import io.volrep.spi.exec.internal.ProcessRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One driver executable's runs: {@code <driver> <operation> <request-json>} with the secrets on stdin, in its own
 * environment, contained as {@link ExecDriver.Containment} says, admitted by {@link DriverSlots}; what it printed
 * judged into its answer or the exception the caller must see, and its stderr logged with the call's secrets masked.
 * Logs under {@link ExecDriver}'s name, which is what operators configure.
 */
final class DriverProcesses implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ExecDriver.class);
    /** Extra stderr kept beyond what is logged so that a secret cut by the limit is still masked whole. */
    private static final int STDERR_SCRUB_MARGIN = 4 * 1024;
    /** A request file's mode: the driver runs as the server's user; the request names ids, other users need not. */
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path executable;
    private final Duration timeout;
    private final Map<String, String> environment;
    private final Path workingDirectory;
    private final ProcessRunner runner;
    private final DriverSlots slots;

    DriverProcesses(
            Path executable,
            Duration timeout,
            Set<String> passed,
            Map<String, String> configured,
            Path workingDirectory,
            ExecDriver.Containment containment,
            DriverSlots slots) {
        this.executable = executable;
        this.timeout = timeout;
        this.environment = Collections.unmodifiableMap(environment(passed, configured));
        this.workingDirectory = workingDirectory;
        this.slots = slots;
        this.runner = new ProcessRunner(
                ExecDriver.MAX_STDOUT_BYTES,
                ExecDriver.STDERR_LOG_BYTES + STDERR_SCRUB_MARGIN,
                launcher(containment, executable));
    }

    /** The driver's whole environment: the passed names the server has, then the configured values. */
    private static Map<String, String> environment(Set<String> passed, Map<String, String> configured) {
        Map<String, String> server = System.getenv();
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : passed) {
            String value = server.get(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        env.putAll(configured);
        return env;
    }

    private static List<String> launcher(ExecDriver.Containment containment, Path executable) {
        if (containment == ExecDriver.Containment.OFF) {
            return List.of();
        }
        PidNamespaces.Probe probe = PidNamespaces.probe();
        if (probe.available()) {
            return probe.launcher();
        }
        if (containment == ExecDriver.Containment.REQUIRED) {
            throw new IllegalStateException("exec driver " + executable + ": containment REQUIRED, but PID"
                    + " namespaces are unavailable: " + probe.failure());
        }
        LOG.warn(
                "exec driver {}: PID namespaces are unavailable ({}); falling back to killing the driver's"
                        + " descendants on a timeout, which a daemonizing child (setsid, double fork) can escape",
                executable,
                probe.failure());
        return List.of();
    }

    Path executable() {
        return executable;
    }

    /** The names of the variables a driver gets. */
    Set<String> environmentNames() {
        return environment.keySet();
    }

    /** How messages name the driver and operation: {@code exec driver /path (promote)}. */
    String who(ExecOperation op) {
        return "exec driver " + executable + " (" + op.wireName() + ")";
    }

    /**
     * Runs one operation once a slot is free (waiting no longer than the timeout, nor past {@code deadline}), and
     * returns its consistent Success answer or throws.
     */
    Response run(ExecOperation op, String requestJson, Secrets callSecrets, CallDeadline deadline) {
        String who = who(op);
        byte[] stdin = ExecRequests.secrets(callSecrets).getBytes(StandardCharsets.UTF_8);
        Secrets secrets = ExecRequests.asPrinted(callSecrets); // what is masked in the driver's output
        ProcessRunner.Result result;
        long start = System.nanoTime();
        try {
            slots.admit(who, deadline);
            try {
                result = launch(op, requestJson, stdin);
            } finally {
                slots.release();
            }
        } catch (IOException e) {
            LOG.error("{}: cannot start the driver: {}", who, e.getMessage());
            throw new UnknownErrorException(who + ": cannot start the driver: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(who + ": interrupted (the server is shutting down)");
        }
        boolean success = false;
        try {
            if (slots.closed()) {
                throw new UnavailableException(who + ": the driver was stopped (the server is shutting down)");
            }
            Response answer = judge(who, result, secrets);
            success = true;
            return answer;
        } finally {
            logStderr(who, result, secrets, success, (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * Starts the driver for {@code op} without waiting for a slot ({@code init}, before any call) and waits for it. The
     * request is {@code argv[2]} when it fits in one argument ({@link ExecDriver#MAX_ARGUMENT_BYTES}); a larger one (a
     * volume group of thousands of members) is written to a file only this user can read, named {@code @PATH} in
     * {@code argv[2]} and removed when the driver has ended.
     */
    ProcessRunner.Result launch(ExecOperation op, String requestJson, byte[] stdin)
            throws IOException, InterruptedException {
        byte[] request = requestJson.getBytes(StandardCharsets.UTF_8);
        if (request.length <= ExecDriver.MAX_ARGUMENT_BYTES) {
            return run(op, requestJson, stdin);
        }
        Path file = Files.createTempFile("volrep-" + op.wireName() + "-", ".json", OWNER_ONLY);
        try {
            Files.write(file, request);
            return run(op, "@" + file, stdin);
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("{}: cannot remove the request file {}: {}", who(op), file, e.toString());
            }
        }
    }

    private ProcessRunner.Result run(ExecOperation op, String argument, byte[] stdin)
            throws IOException, InterruptedException {
        return runner.run(
                List.of(executable.toString(), op.wireName(), argument), environment, workingDirectory, stdin, timeout);
    }

    /**
     * What a finished run answered: its Success answer, or the exception the caller must see (a timeout, over-long
     * or malformed output, a Failure, an inconsistent exit code).
     *
     * @param secrets the call's secrets {@linkplain ExecRequests#asPrinted as printed}
     */
    Response judge(String who, ProcessRunner.Result result, Secrets secrets) {
        switch (result.ending()) {
            case TIMED_OUT ->
                throw new DeadlineExceededException(
                        who + ": no answer within " + timeout + "; the driver's process tree was killed");
            case OUTPUT_TOO_LARGE ->
                throw new UnknownErrorException(who + ": printed more than " + ExecDriver.MAX_STDOUT_BYTES
                        + " bytes on stdout; the driver was killed");
            default -> {}
        }
        Response answer;
        try {
            answer = ExecProtocol.parse(result.stdout());
        } catch (IllegalArgumentException e) {
            LOG.warn(
                    "{}: malformed output (exit code {}): {}; stdout began with: {}",
                    who,
                    result.exitCode(),
                    secrets.scrub(e.getMessage()),
                    excerpt(result.stdout(), 512, secrets));
            throw new UnknownErrorException(who + ": malformed output: " + secrets.scrub(e.getMessage())
                    + " (exit code " + result.exitCode() + ")");
        }
        return ExecProtocol.judge(who, answer, result.exitCode(), secrets);
    }

    /** The run's stderr as one log line: WARN when the call failed, DEBUG otherwise. */
    void logStderr(String who, ProcessRunner.Result result, Secrets secrets, boolean success, long millis) {
        if (result.stderrBytes() == 0) {
            LOG.debug("{}: exit code {} in {} ms", who, result.exitCode(), millis);
            return;
        }
        String text = excerpt(result.stderr(), ExecDriver.STDERR_LOG_BYTES, secrets);
        String cut = result.stderrBytes() > ExecDriver.STDERR_LOG_BYTES
                ? " [... " + (result.stderrBytes() - ExecDriver.STDERR_LOG_BYTES) + " more bytes of stderr not logged]"
                : "";
        if (success) {
            LOG.debug("{}: exit code {} in {} ms; stderr: {}{}", who, result.exitCode(), millis, text, cut);
        } else {
            LOG.warn("{}: exit code {} in {} ms; stderr: {}{}", who, result.exitCode(), millis, text, cut);
        }
    }

    /**
     * The bytes as one line of text: secrets masked first (in every {@linkplain ExecRequests#asPrinted printed
     * form}), then cut to {@code maxChars}, then control characters escaped, so that a driver cannot forge log
     * lines or send escape sequences to a terminal.
     */
    private static String excerpt(byte[] bytes, int maxChars, Secrets secrets) {
        String text = secrets.scrub(new String(bytes, StandardCharsets.UTF_8));
        return SafeText.escape(text.length() <= maxChars ? text : text.substring(0, maxChars));
    }

    int running() {
        return runner.running();
    }

    long killedOnTimeout() {
        return runner.killedOnTimeout();
    }

    boolean contained() {
        return runner.contained();
    }

    /** Kills every driver process still running and releases the I/O threads. */
    @Override
    public void close() {
        runner.close();
    }
}

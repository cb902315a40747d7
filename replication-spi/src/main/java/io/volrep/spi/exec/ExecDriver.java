package io.volrep.spi.exec;

import io.grpc.Context;
import io.grpc.Deadline;
import io.volrep.api.Arguments;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.HealReport;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SafeText;
import io.volrep.api.Secrets;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.UnknownErrorException;
import io.volrep.api.wire.WireMapping;
import io.volrep.proto.exec.Response;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.spi.exec.internal.ProcessRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exec bridge: serves a driver <em>executable</em> (shell, Python, Go, ...) that follows the exec protocol
 * of docs/exec-drivers.md as a spec-correct replication plugin. Each call runs
 * {@code <driver> <operation> <request-json>} with the secrets as one JSON object on stdin (never in the
 * arguments or the environment, which other users of the machine can read), and turns the JSON object the
 * driver prints on stdout into the RPC's answer. Everything else the SPI runtime does (validation,
 * normalization, the per-source guard, error mapping, logging) applies unchanged, so the driver never sees
 * two concurrent calls for one source; calls for different sources run in parallel.
 *
 * <pre>{@code
 * try (ExecDriver driver = ExecDriver.builder()
 *         .executable(Path.of("/usr/libexec/volrep/my-driver"))
 *         .timeout(Duration.ofSeconds(30))                // per call; default 60 s
 *         .build();                                       // runs "my-driver init {}" once
 *      ReplicationServer server = ReplicationServer.builder().driver(driver)
 *         .listen("unix:///csi/csi-addons.sock").build().start()) {    // + .healer(driver) if servesHealer()
 *     server.awaitTermination();
 * }
 * }</pre>
 *
 * <p>{@link Builder#build()} runs {@code init} once: its {@code capabilities} (operation name to boolean)
 * decide which RPCs answer UNIMPLEMENTED without running the driver (an operation it does not mention keeps
 * its {@linkplain ExecOperation#supportedByDefault() default}), its optional {@code sourceKinds} which
 * source kinds the runtime accepts (default: volumes and volume groups). An {@code init} that fails, times
 * out or prints nonsense makes {@code build()} throw {@link IllegalStateException} naming the driver.
 *
 * <p>It is also a {@link HealerDriver}: with {@code "heal": true} in {@code init}'s capabilities
 * ({@link #servesHealer()}), serve it with {@code .healer(driver)} too and NodeHealer runs
 * {@code <driver> heal <request-json>}.
 *
 * <p>Answers: "Not supported" is UNIMPLEMENTED; a Failure carries its {@code code} (a gRPC code name), UNKNOWN
 * without one; a driver that cannot be started, prints malformed or over-long output, an unknown status or
 * code, or exits non-zero with Success answers UNKNOWN naming the driver and operation; a driver that runs past
 * the timeout is killed with every process it started and answers DEADLINE_EXCEEDED. The driver's stderr goes
 * to this class's log as one line (its first {@value #STDERR_LOG_BYTES} bytes, the call's secret values masked
 * also in their JSON-escaped forms, control characters escaped): WARN when the call failed, DEBUG otherwise.
 *
 * <p>Containment ({@link Builder#containment}): by default each call's driver runs in its own PID namespace, so
 * nothing it starts, daemons included, outlives the driver, the timeout or {@link #close()}. Admission control
 * ({@link Builder#maxConcurrentDrivers}): at most that many drivers run at once; a call waits for a slot until
 * shortly before its deadline or until the timeout, whichever comes first, and answers UNAVAILABLE (retryable)
 * when none frees in time; {@link #stats()} shows the load.
 *
 * <p>Environment: a driver gets {@link #DEFAULT_PASSED_ENVIRONMENT} and the names given to
 * {@link Builder#passEnvironment} from the server's environment, and the values given to
 * {@link Builder#environment}; nothing else (a server started with credentials in its environment keeps them).
 */
public final class ExecDriver implements ReplicationDriver, HealerDriver, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ExecDriver.class);

    /**
     * What a driver gets of the server's environment unless more is passed ({@link Builder#passEnvironment}):
     * {@code PATH} (to find its tools, {@code #!/usr/bin/env} included), {@code HOME} (tools that read their
     * configuration from it), {@code LANG}, {@code LC_ALL} and {@code LC_CTYPE} (the text encoding tools assume),
     * {@code TZ} (the time zone of the timestamps it prints) and {@code TMPDIR} (where {@code mktemp} writes).
     */
    public static final List<String> DEFAULT_PASSED_ENVIRONMENT =
            List.of("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR");

    /** The default per-call timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    /** The most a driver may print on stdout; more answers UNKNOWN (and the driver is killed). */
    public static final int MAX_STDOUT_BYTES = 1024 * 1024;
    /** How much of a driver's stderr is logged per call. */
    public static final int STDERR_LOG_BYTES = 8 * 1024;
    /**
     * Time kept back from a call's deadline when waiting for a slot, so that UNAVAILABLE reaches the caller
     * before its deadline does: a tenth of the time left, between these bounds.
     */
    private static final Duration MIN_ADMISSION_RESERVE = Duration.ofMillis(100);
    private static final Duration MAX_ADMISSION_RESERVE = Duration.ofSeconds(1);
    /** Extra stderr kept beyond what is logged so that a secret cut by the limit is still masked whole. */
    private static final int STDERR_SCRUB_MARGIN = 4 * 1024;

    private static final Set<ReplicationSource.Kind> DEFAULT_KINDS =
            Collections.unmodifiableSet(EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP));

    private final Path executable;
    private final Duration timeout;
    private final Map<String, String> environment;
    private final Path workingDirectory;
    private final ProcessRunner runner;
    private final Set<ExecOperation> supported;
    private final Set<ReplicationSource.Kind> sourceKinds;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final int maxConcurrentDrivers;
    /** Admission control: one permit per driver process; fair, so that the longest waiter goes first. */
    private final Semaphore slots;
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();

    private ExecDriver(Builder b) {
        this.executable = b.executable;
        this.timeout = b.timeout;
        this.environment = Collections.unmodifiableMap(environment(b.passed, b.environment));
        this.workingDirectory = b.workingDirectory;
        this.maxConcurrentDrivers = b.maxConcurrentDrivers;
        this.slots = new Semaphore(maxConcurrentDrivers, true);
        this.runner = new ProcessRunner(MAX_STDOUT_BYTES, STDERR_LOG_BYTES + STDERR_SCRUB_MARGIN,
                launcher(b.containment, b.executable));
        Response init;
        try {
            init = initialize();
        } catch (RuntimeException e) {
            runner.close();
            throw e;
        }
        this.supported = Collections.unmodifiableSet(supportedOperations(init));
        this.sourceKinds = Collections.unmodifiableSet(sourceKinds(init));
        LOG.info("exec driver {} initialized: operations {}, source kinds {}, timeout {}, at most {} at once,"
                + " containment {}, environment {}", executable, supported, sourceKinds, timeout, maxConcurrentDrivers,
                runner.contained() ? "a PID namespace per call" : "descendants only (off)", environment.keySet());
        if (!supported.contains(ExecOperation.ENABLE) || !supported.contains(ExecOperation.DISABLE)) {
            LOG.warn("exec driver {} does not support enable and disable, which the replication spec requires",
                    executable);
        }
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

    /**
     * How the processes a driver starts are kept from outliving its call (docs/exec-drivers.md, "Containment").
     *
     * <pre>{@code
     * ExecDriver.builder().executable(path).containment(ExecDriver.Containment.REQUIRED).build();
     * }</pre>
     */
    public enum Containment {
        /**
         * Each call's driver runs as the init process of its own PID namespace ({@code unshare --pid --fork
         * --kill-child}): when it exits, times out or the driver is closed, every process it started is killed
         * by the kernel, daemons (setsid, double fork) included. The default.
         */
        AUTO,
        /** As {@link #AUTO}, but {@link Builder#build()} fails when PID namespaces are unavailable. */
        REQUIRED,
        /**
         * No namespace: on a timeout or close the driver's descendants are killed as far as polling the tree
         * found them; a process that leaves the tree quickly (setsid, double fork) escapes. Processes a driver
         * leaves behind after answering keep running. What {@link #AUTO} falls back to, with a warning, when PID
         * namespaces are unavailable.
         */
        OFF
    }

    private static List<String> launcher(Containment containment, Path executable) {
        if (containment == Containment.OFF) {
            return List.of();
        }
        PidNamespaces.Probe probe = PidNamespaces.probe();
        if (probe.available()) {
            return probe.launcher();
        }
        if (containment == Containment.REQUIRED) {
            throw new IllegalStateException("exec driver " + executable + ": containment REQUIRED, but PID"
                    + " namespaces are unavailable: " + probe.failure());
        }
        LOG.warn("exec driver {}: PID namespaces are unavailable ({}); falling back to killing the driver's"
                + " descendants on a timeout, which a daemonizing child (setsid, double fork) can escape",
                executable, probe.failure());
        return List.of();
    }

    /** A new builder; {@link Builder#executable} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The driver executable. */
    public Path executable() {
        return executable;
    }

    /** The per-call timeout. */
    public Duration timeout() {
        return timeout;
    }

    /** The operations {@code init} declared supported ({@link ExecOperation#INIT} always included). */
    public Set<ExecOperation> supportedOperations() {
        return supported;
    }

    /** From {@code init}'s {@code sourceKinds}; volumes and volume groups when it has none. */
    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return sourceKinds;
    }

    @Override
    public void enable(EnableRequest r) {
        invoke(ExecOperation.ENABLE, ExecProtocol.sourceRequest(r.source(), r.parameters(), Optional.empty(),
                r.replicationId()), r.secrets());
    }

    @Override
    public void disable(DisableRequest r) {
        invoke(ExecOperation.DISABLE, ExecProtocol.sourceRequest(r.source(), r.parameters(), Optional.empty(),
                r.replicationId()), r.secrets());
    }

    @Override
    public void promote(PromoteRequest r) {
        invoke(ExecOperation.PROMOTE, ExecProtocol.sourceRequest(r.source(), r.parameters(), Optional.of(r.force()),
                r.replicationId()), r.secrets());
    }

    @Override
    public void demote(DemoteRequest r) {
        invoke(ExecOperation.DEMOTE, ExecProtocol.sourceRequest(r.source(), r.parameters(), Optional.of(r.force()),
                r.replicationId()), r.secrets());
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        Response answer = invoke(ExecOperation.RESYNC, ExecProtocol.sourceRequest(r.source(), r.parameters(),
                Optional.of(r.force()), r.replicationId()), r.secrets());
        return ExecProtocol.resyncReady(who(ExecOperation.RESYNC), answer) ? ResyncResult.READY
                : ResyncResult.IN_PROGRESS;
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        Response answer = invoke(ExecOperation.INFO, ExecProtocol.sourceRequest(r.source(), null, Optional.empty(),
                r.replicationId()), r.secrets());
        return ExecProtocol.info(who(ExecOperation.INFO), answer, ExecProtocol.asPrinted(r.secrets()));
    }

    /**
     * GetReplicationDestinationInfo, when {@code init} declared {@code "destination": true} (else UNIMPLEMENTED
     * without running the driver, and Identity does not advertise the capability).
     */
    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        Response answer = invoke(ExecOperation.DESTINATION, ExecProtocol.sourceRequest(r.source(), null,
                Optional.empty(), Optional.empty()), r.secrets());
        return ExecProtocol.destination(who(ExecOperation.DESTINATION), r.source(), answer);
    }

    /** True when {@code init} declared {@code "destination": true}. */
    @Override
    public boolean servesDestinations() {
        return supported.contains(ExecOperation.DESTINATION);
    }

    /**
     * NodeHealer, when {@code init} declared {@code "heal": true} (else UNIMPLEMENTED without running the driver).
     * Serve it with {@code ReplicationServer.builder().healer(driver)}; {@link #servesHealer()} tells whether to.
     */
    @Override
    public HealReport heal(HealRequest r) {
        Response answer = invoke(ExecOperation.HEAL, ExecProtocol.healRequest(r.volumeId(), r.volumePath(),
                r.stagingTargetPath(), r.capability().map(WireMapping::toProto).orElse(null), r.volumeContext()),
                r.secrets());
        ExecProtocol.HealResult result = ExecProtocol.healResult(who(ExecOperation.HEAL), answer,
                ExecProtocol.asPrinted(r.secrets()));
        return new HealReport(result.abnormal(), result.message());
    }

    /** True when {@code init} declared {@code "heal": true}: the driver should also be served as the healer. */
    public boolean servesHealer() {
        return supported.contains(ExecOperation.HEAL);
    }

    /** How many driver processes are running right now. */
    public int processesRunning() {
        return runner.running();
    }

    /**
     * The default bound on concurrent driver processes: four per available processor, at least four. Drivers
     * mostly wait on their storage, so a few per core keep the machine busy without letting a burst of calls
     * start hundreds of processes.
     */
    public static int defaultMaxConcurrentDrivers() {
        return Math.max(4, 4 * Runtime.getRuntime().availableProcessors());
    }

    /**
     * A snapshot of the driver's load, e.g. for a metrics gauge.
     *
     * <pre>{@code
     * ExecDriver.Stats s = driver.stats();
     * if (s.waiting() > 0) { log.info("{} calls wait for one of {} driver slots", s.waiting(), s.limit()); }
     * }</pre>
     *
     * @param running driver processes running now
     * @param waiting calls waiting for a slot now
     * @param limit the bound on concurrent driver processes
     * @param killedOnTimeout driver runs killed at their timeout so far ({@code init} included)
     * @param rejected calls answered UNAVAILABLE because no slot freed within their deadline, so far
     */
    public record Stats(int running, int waiting, int limit, long killedOnTimeout, long rejected) {
    }

    /** The driver's load now. */
    public Stats stats() {
        return new Stats(runner.running(), waiting.get(), maxConcurrentDrivers, runner.killedOnTimeout(),
                rejected.get());
    }

    /** True when each call's driver runs in its own PID namespace ({@link Containment}). */
    public boolean contained() {
        return runner.contained();
    }

    /** Kills every driver process still running and releases the I/O threads. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // Calls waiting for a slot wake up, see the driver closed and answer UNAVAILABLE at once.
            slots.release(Integer.MAX_VALUE - maxConcurrentDrivers);
            runner.close();
        }
    }

    @Override
    public String toString() {
        return "ExecDriver[" + executable + ", timeout " + timeout + "]";
    }

    private String who(ExecOperation op) {
        return "exec driver " + executable + " (" + op.wireName() + ")";
    }

    /**
     * Runs one operation and returns its consistent Success answer, or throws what the caller must see. Only
     * operations {@code init} declared supported run; the others answer UNIMPLEMENTED here.
     */
    private Response invoke(ExecOperation op, String requestJson, Secrets secrets) {
        if (closed.get()) {
            throw new UnavailableException("exec driver " + executable + " is shutting down");
        }
        if (!supported.contains(op)) {
            throw new UnimplementedException(who(op) + ": not supported (init capabilities)");
        }
        return run(op, requestJson, secrets);
    }

    private Response run(ExecOperation op, String requestJson, Secrets callSecrets) {
        String who = who(op);
        byte[] stdin = ExecProtocol.secrets(callSecrets).getBytes(StandardCharsets.UTF_8);
        Secrets secrets = ExecProtocol.asPrinted(callSecrets);     // what is masked in the driver's output
        ProcessRunner.Result result;
        long start = System.nanoTime();
        try {
            admit(who);
            try {
                result = runner.run(List.of(executable.toString(), op.wireName(), requestJson), environment,
                        workingDirectory, stdin, timeout);
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
            if (closed.get()) {
                throw new UnavailableException(who + ": the driver was stopped (the server is shutting down)");
            }
            Response answer = interpret(who, result, secrets);
            success = true;
            return answer;
        } finally {
            logStderr(who, result, secrets, success, (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** @param secrets the call's secrets {@linkplain ExecProtocol#asPrinted as printed} */
    /**
     * Waits for a driver slot until shortly before the call's deadline or until the timeout, whichever comes first
     * (the timeout alone when the call has no deadline): a caller rather gets a retryable UNAVAILABLE it can act on
     * than its own DEADLINE_EXCEEDED, and a call with a far deadline holds no server thread longer than a driver
     * may run.
     */
    private void admit(String who) throws InterruptedException {
        long wait = timeout.toNanos();
        boolean byDeadline = false;
        Deadline deadline = Context.current().getDeadline();
        if (deadline != null) {
            long left = deadline.timeRemaining(TimeUnit.NANOSECONDS);
            long reserve = Math.min(Math.max(left / 10, MIN_ADMISSION_RESERVE.toNanos()),
                    MAX_ADMISSION_RESERVE.toNanos());
            byDeadline = left - reserve < wait;
            wait = Math.min(wait, left - reserve);
        }
        waiting.incrementAndGet();
        boolean admitted;
        try {
            admitted = slots.tryAcquire(Math.max(0, wait), TimeUnit.NANOSECONDS);
        } finally {
            waiting.decrementAndGet();
        }
        if (admitted && closed.get()) {
            slots.release();
            throw new UnavailableException(who + ": the driver was stopped (the server is shutting down)");
        }
        if (!admitted) {
            rejected.incrementAndGet();
            throw new UnavailableException(who + ": all " + maxConcurrentDrivers + " driver slots are busy and none"
                    + " freed within " + Math.max(0, wait) / 1_000_000 + " ms ("
                    + (byDeadline ? "shortly before the call's deadline" : "the driver timeout (--timeout) ends before"
                    + " the call's deadline") + "); retry later"
                    + " (the bound is ExecDriver.Builder.maxConcurrentDrivers, serve-exec --max-concurrent-drivers)");
        }
    }

    private Response interpret(String who, ProcessRunner.Result result, Secrets secrets) {
        switch (result.ending()) {
            case TIMED_OUT:
                throw new DeadlineExceededException(who + ": no answer within " + timeout
                        + "; the driver's process tree was killed");
            case OUTPUT_TOO_LARGE:
                throw new UnknownErrorException(who + ": printed more than " + MAX_STDOUT_BYTES
                        + " bytes on stdout; the driver was killed");
            default:
                break;
        }
        Response answer;
        try {
            answer = ExecProtocol.parse(result.stdout());
        } catch (IllegalArgumentException e) {
            LOG.warn("{}: malformed output (exit code {}): {}; stdout began with: {}", who, result.exitCode(),
                    secrets.scrub(e.getMessage()), excerpt(result.stdout(), 512, secrets));
            throw new UnknownErrorException(who + ": malformed output: " + secrets.scrub(e.getMessage())
                    + " (exit code " + result.exitCode() + ")");
        }
        return ExecProtocol.judge(who, answer, result.exitCode(), secrets);
    }

    private void logStderr(String who, ProcessRunner.Result result, Secrets secrets, boolean success, long millis) {
        if (result.stderrBytes() == 0) {
            LOG.debug("{}: exit code {} in {} ms", who, result.exitCode(), millis);
            return;
        }
        String text = excerpt(result.stderr(), STDERR_LOG_BYTES, secrets);
        String cut = result.stderrBytes() > STDERR_LOG_BYTES
                ? " [... " + (result.stderrBytes() - STDERR_LOG_BYTES) + " more bytes of stderr not logged]" : "";
        if (success) {
            LOG.debug("{}: exit code {} in {} ms; stderr: {}{}", who, result.exitCode(), millis, text, cut);
        } else {
            LOG.warn("{}: exit code {} in {} ms; stderr: {}{}", who, result.exitCode(), millis, text, cut);
        }
    }

    /**
     * The bytes as one line of text: secrets masked first (in every {@linkplain ExecProtocol#asPrinted printed
     * form}), then cut to {@code maxChars}, then control characters escaped, so that a driver cannot forge log
     * lines or send escape sequences to a terminal.
     */
    private static String excerpt(byte[] bytes, int maxChars, Secrets secrets) {
        String text = secrets.scrub(new String(bytes, StandardCharsets.UTF_8));
        return SafeText.escape(text.length() <= maxChars ? text : text.substring(0, maxChars));
    }

    private Response initialize() {
        if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
            throw new IllegalStateException("exec driver " + executable + " is not an executable file");
        }
        String who = who(ExecOperation.INIT);
        ProcessRunner.Result result;
        try {
            result = runner.run(List.of(executable.toString(), ExecOperation.INIT.wireName(),
                    ExecProtocol.initRequest()), environment, workingDirectory,
                    ExecProtocol.secrets(Secrets.empty()).getBytes(StandardCharsets.UTF_8), timeout);
        } catch (IOException e) {
            throw new IllegalStateException(who + ": cannot start the driver: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(who + ": interrupted", e);
        }
        boolean success = false;
        try {
            Response answer = interpret(who, result, Secrets.empty());
            success = true;
            return answer;
        } catch (UnimplementedException e) {
            // A driver without init: every operation keeps its default.
            success = true;
            LOG.info("{}: init not supported; using the default capabilities", who);
            return Response.getDefaultInstance();
        } catch (ReplicationException e) {
            throw new IllegalStateException("exec driver " + executable + " failed to initialize: "
                    + e.getMessage(), e);
        } finally {
            logStderr(who, result, Secrets.empty(), success, 0);
        }
    }

    private Set<ExecOperation> supportedOperations(Response init) {
        Map<ExecOperation, Boolean> declared = new EnumMap<>(ExecOperation.class);
        init.getCapabilitiesMap().forEach((name, value) -> {
            Optional<ExecOperation> op = ExecOperation.fromWireName(name);
            if (op.isEmpty()) {
                LOG.warn("exec driver {}: ignoring unknown capability \"{}\"", executable,
                        ExecProtocol.untrusted(name, 40));
            } else {
                declared.put(op.get(), value);
            }
        });
        Set<ExecOperation> ops = EnumSet.of(ExecOperation.INIT);
        for (ExecOperation op : ExecOperation.values()) {
            if (declared.getOrDefault(op, op.supportedByDefault())) {
                ops.add(op);
            }
        }
        return ops;
    }

    private Set<ReplicationSource.Kind> sourceKinds(Response init) {
        if (init.getSourceKindsCount() == 0) {
            return DEFAULT_KINDS;
        }
        Set<ReplicationSource.Kind> kinds = EnumSet.noneOf(ReplicationSource.Kind.class);
        for (String name : init.getSourceKindsList()) {
            try {
                kinds.add(ReplicationSource.Kind.fromWireName(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("exec driver " + executable + " failed to initialize: unknown source"
                        + " kind \"" + ExecProtocol.untrusted(name, 40)
                        + "\" in sourceKinds (expected volume, volumegroup, volumesnapshot)");
            }
        }
        return kinds;
    }

    /**
     * Configures an {@link ExecDriver}.
     *
     * <pre>{@code
     * ExecDriver.builder().executable(Path.of("examples/exec-driver/volrep-exec-example"))
     *         .timeout(Duration.ofSeconds(10))
     *         .environment("VOLREP_EXEC_STATE_DIR", "/var/lib/my-driver")
     *         .build();
     * }</pre>
     */
    public static final class Builder {
        private Path executable;
        private Duration timeout = DEFAULT_TIMEOUT;
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Set<String> passed = new java.util.LinkedHashSet<>(DEFAULT_PASSED_ENVIRONMENT);
        private Path workingDirectory;
        private Containment containment = Containment.AUTO;
        private int maxConcurrentDrivers = defaultMaxConcurrentDrivers();

        private Builder() {
        }

        /**
         * How the driver's processes are contained (default {@link Containment#AUTO}: a PID namespace per call
         * when available).
         */
        public Builder containment(Containment containment) {
            this.containment = Objects.requireNonNull(containment, "containment");
            return this;
        }

        /** The driver executable (required): a file with execute permission, e.g. a script with a shebang. */
        public Builder executable(Path executable) {
            this.executable = Objects.requireNonNull(executable, "executable").toAbsolutePath();
            return this;
        }

        /** How long one call (and {@code init}) may run before its process tree is killed (default 60 s). */
        public Builder timeout(Duration timeout) {
            this.timeout = Arguments.requirePositive("timeout", timeout);
            return this;
        }

        /**
         * An environment variable for the driver, on top of what is passed from the server's environment. For
         * configuration only: never put secrets here (the environment of a process is readable by others); the
         * orchestrator's secrets reach the driver on stdin.
         */
        public Builder environment(String name, String value) {
            environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Passes the server's variable {@code name} (when it has one) to the driver, besides
         * {@link #DEFAULT_PASSED_ENVIRONMENT}; no other variable of the server's environment reaches a driver.
         *
         * <pre>{@code
         * ExecDriver.builder().executable(path).passEnvironment("KUBECONFIG").passEnvironment("HTTPS_PROXY").build();
         * }</pre>
         */
        public Builder passEnvironment(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("passEnvironment: not a variable name: '" + SafeText.escape(name)
                        + "'");
            }
            passed.add(name);
            return this;
        }

        /**
         * The most driver processes that run at once (default {@link #defaultMaxConcurrentDrivers()}). A call
         * beyond it waits for a slot until shortly before its deadline or until the timeout, whichever comes first,
         * and answers UNAVAILABLE, which clients retry, when none frees in time.
         */
        public Builder maxConcurrentDrivers(int max) {
            this.maxConcurrentDrivers = Arguments.requireAtLeast("maxConcurrentDrivers", max, 1);
            return this;
        }

        /** The driver's working directory (default: the server's). */
        public Builder workingDirectory(Path directory) {
            this.workingDirectory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * Runs the driver's {@code init} and returns the ready driver.
         *
         * @throws IllegalStateException naming the driver when it is missing, not executable, or its {@code init}
         *                               fails, times out or answers malformed output
         */
        public ExecDriver build() {
            if (executable == null) {
                throw new IllegalStateException("executable(path) is required");
            }
            return new ExecDriver(this);
        }
    }
}

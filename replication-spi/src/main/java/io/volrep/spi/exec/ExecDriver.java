package io.volrep.spi.exec;

import io.volrep.api.HealReport;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.api.internal.Arguments;
import io.volrep.api.internal.SafeText;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.exec.Response;
import io.volrep.spi.CreateGroupRequest;
import io.volrep.spi.DeleteGroupRequest;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.DriverRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.GetGroupRequest;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.ListGroupsRequest;
import io.volrep.spi.ModifyGroupRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.spi.VolumeGroupDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exec bridge: serves a driver <em>executable</em> (shell, Python, Go, ...) that follows the exec protocol
 * of docs/exec-drivers.md as a spec-correct replication plugin. Each call runs
 * {@code <driver> <operation> <request-json>} with the secrets as one JSON object on stdin (never in the
 * arguments or the environment, which other users of the machine can read; a request larger than
 * {@link #MAX_ARGUMENT_BYTES} is passed as {@code @PATH}, a file holding it), and turns the JSON object the
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
 * {@code <driver> heal <request-json>}. And a {@link VolumeGroupDriver}: with {@code "create-group": true} and
 * {@code "delete-group": true} ({@link #servesVolumeGroups()}), serve it with {@code .volumeGroups(driver)} and the
 * five volume group RPCs run {@code create-group}, {@code modify-group}, {@code delete-group}, {@code get-group} and
 * {@code list-groups}, each only when {@code init} turned it on.
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
public final class ExecDriver implements ReplicationDriver, HealerDriver, VolumeGroupDriver, AutoCloseable {
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
     * The largest request JSON, in UTF-8 bytes, passed as {@code argv[2]}: Linux takes at most 128 KiB per argument,
     * its terminating NUL included. A larger request is written to a file and {@code argv[2]} is {@code @PATH}.
     */
    public static final int MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

    private final Path executable;
    private final Duration timeout;
    private final DriverSlots slots;
    private final DriverProcesses processes;
    private final DriverInit init;

    private ExecDriver(Builder b) {
        this.executable = b.executable;
        this.timeout = b.timeout;
        this.slots = new DriverSlots(b.maxConcurrentDrivers, b.timeout);
        this.processes = new DriverProcesses(
                b.executable, b.timeout, b.passed, b.environment, b.workingDirectory, b.containment, slots);
        try {
            this.init = DriverInit.negotiate(processes);
        } catch (RuntimeException e) {
            processes.close();
            throw e;
        }
        LOG.info(
                "exec driver {} initialized: operations {}, source kinds {}, volume group behaviours {}, timeout {},"
                        + " at most {} at once, containment {}, environment {}",
                executable,
                init.operations(),
                init.sourceKinds(),
                init.groupBehaviours(),
                timeout,
                slots.limit(),
                processes.contained() ? "a PID namespace per call" : "descendants only (off)",
                processes.environmentNames());
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
        return init.operations();
    }

    /** From {@code init}'s {@code sourceKinds}; volumes and volume groups when it has none. */
    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return init.sourceKinds();
    }

    @Override
    public void enable(EnableRequest r) {
        invoke(
                ExecOperation.ENABLE,
                ExecRequests.sourceRequest(r.source(), r.parameters(), Optional.empty(), r.replicationId()),
                r);
    }

    @Override
    public void disable(DisableRequest r) {
        invoke(
                ExecOperation.DISABLE,
                ExecRequests.sourceRequest(r.source(), r.parameters(), Optional.empty(), r.replicationId()),
                r);
    }

    @Override
    public void promote(PromoteRequest r) {
        invoke(
                ExecOperation.PROMOTE,
                ExecRequests.sourceRequest(r.source(), r.parameters(), Optional.of(r.force()), r.replicationId()),
                r);
    }

    @Override
    public void demote(DemoteRequest r) {
        invoke(
                ExecOperation.DEMOTE,
                ExecRequests.sourceRequest(r.source(), r.parameters(), Optional.of(r.force()), r.replicationId()),
                r);
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        Response answer = invoke(
                ExecOperation.RESYNC,
                ExecRequests.sourceRequest(r.source(), r.parameters(), Optional.of(r.force()), r.replicationId()),
                r);
        return ExecProtocol.resyncReady(who(ExecOperation.RESYNC), answer)
                ? ResyncResult.READY
                : ResyncResult.IN_PROGRESS;
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        Response answer = invoke(
                ExecOperation.INFO,
                ExecRequests.sourceRequest(r.source(), null, Optional.empty(), r.replicationId()),
                r);
        return ExecProtocol.info(who(ExecOperation.INFO), answer, ExecRequests.asPrinted(r.secrets()));
    }

    /**
     * GetReplicationDestinationInfo, when {@code init} declared {@code "destination": true} (else UNIMPLEMENTED
     * without running the driver, and Identity does not advertise the capability).
     */
    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        Response answer = invoke(
                ExecOperation.DESTINATION,
                ExecRequests.sourceRequest(r.source(), null, Optional.empty(), Optional.empty()),
                r);
        return ExecProtocol.destination(who(ExecOperation.DESTINATION), r.source(), answer);
    }

    /**
     * The replication RPCs whose operations {@code init} turned on (the six of the seed spec by default;
     * GetReplicationDestinationInfo with {@code "destination": true}); the runtime answers the others 12 UNIMPLEMENTED.
     */
    @Override
    public Set<Rpc> servedRpcs() {
        return init.replicationRpcs();
    }

    /**
     * NodeHealer, when {@code init} declared {@code "heal": true} (else UNIMPLEMENTED without running the driver).
     * Serve it with {@code ReplicationServer.builder().healer(driver)}; {@link #servesHealer()} tells whether to.
     */
    @Override
    public HealReport heal(HealRequest r) {
        Response answer = invoke(
                ExecOperation.HEAL,
                ExecRequests.healRequest(
                        r.volumeId(),
                        r.volumePath(),
                        r.stagingTargetPath(),
                        r.capability().map(WireMapping::toProto).orElse(null),
                        r.volumeContext()),
                r);
        return ExecProtocol.heal(who(ExecOperation.HEAL), answer, ExecRequests.asPrinted(r.secrets()));
    }

    /**
     * CreateVolumeGroup, when {@code init} turned {@code create-group} on: {@code <driver> create-group
     * {"name":...,"volumeIds":[...],"parameters":{...}}} answering {@code "volumeGroup"}.
     */
    @Override
    public VolumeGroup create(CreateGroupRequest r) {
        Response answer = invoke(
                ExecOperation.CREATE_GROUP,
                ExecRequests.groupRequest(r.name(), null, r.volumeIds(), r.parameters()),
                r);
        return ExecProtocol.volumeGroup(who(ExecOperation.CREATE_GROUP), answer);
    }

    /** ModifyVolumeGroupMembership ({@code modify-group}): the whole new membership, answering {@code "volumeGroup"}. */
    @Override
    public VolumeGroup modify(ModifyGroupRequest r) {
        Response answer = invoke(
                ExecOperation.MODIFY_GROUP,
                ExecRequests.groupRequest(null, r.volumeGroupId(), r.volumeIds(), r.parameters()),
                r);
        return ExecProtocol.volumeGroup(who(ExecOperation.MODIFY_GROUP), answer);
    }

    /** DeleteVolumeGroup ({@code delete-group}): Success also for a group that does not exist. */
    @Override
    public void delete(DeleteGroupRequest r) {
        invoke(ExecOperation.DELETE_GROUP, ExecRequests.groupRequest(null, r.volumeGroupId(), null, null), r);
    }

    /** ControllerGetVolumeGroup ({@code get-group}), answering {@code "volumeGroup"}. */
    @Override
    public VolumeGroup get(GetGroupRequest r) {
        Response answer =
                invoke(ExecOperation.GET_GROUP, ExecRequests.groupRequest(null, r.volumeGroupId(), null, null), r);
        return ExecProtocol.volumeGroup(who(ExecOperation.GET_GROUP), answer);
    }

    /** ListVolumeGroups ({@code list-groups}): every group in {@code "volumeGroups"}; the runtime pages them. */
    @Override
    public List<VolumeGroup> list(ListGroupsRequest r) {
        Response answer = invoke(ExecOperation.LIST_GROUPS, ExecRequests.groupRequest(null, null, null, null), r);
        return ExecProtocol.volumeGroups(who(ExecOperation.LIST_GROUPS), answer);
    }

    /** The RPC capabilities of the group operations {@code init} turned on. */
    @Override
    public Set<VolumeGroupCapability> served() {
        return init.groupRpcs();
    }

    /** From {@code init}'s {@code volumeGroupCapabilities}; none when it has none. */
    @Override
    public Set<VolumeGroupCapability> behaviours() {
        return init.groupBehaviours();
    }

    /**
     * True when {@code init} turned {@code create-group} and {@code delete-group} on: the driver should also be served
     * as {@code volumegroup.Controller} ({@code ReplicationServer.Builder.volumeGroups(driver)}).
     */
    public boolean servesVolumeGroups() {
        return init.operations().containsAll(EnumSet.of(ExecOperation.CREATE_GROUP, ExecOperation.DELETE_GROUP));
    }

    /** True when {@code init} declared {@code "heal": true}: the driver should also be served as the healer. */
    public boolean servesHealer() {
        return init.operations().contains(ExecOperation.HEAL);
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
    public record Stats(int running, int waiting, int limit, long killedOnTimeout, long rejected) {}

    /** The driver's load now. */
    public Stats stats() {
        return new Stats(
                processes.running(), slots.waiting(), slots.limit(), processes.killedOnTimeout(), slots.rejected());
    }

    /** True when each call's driver runs in its own PID namespace ({@link Containment}). */
    public boolean contained() {
        return processes.contained();
    }

    /** Kills every driver process still running and releases the I/O threads. Idempotent. */
    @Override
    public void close() {
        // Calls waiting for a slot wake up, see the driver closed and answer UNAVAILABLE at once.
        if (slots.close()) {
            processes.close();
        }
    }

    @Override
    public String toString() {
        return "ExecDriver[" + executable + ", timeout " + timeout + "]";
    }

    private String who(ExecOperation op) {
        return processes.who(op);
    }

    /**
     * Runs one operation and returns its consistent Success answer, or throws what the caller must see. Only
     * operations {@code init} declared supported run; the others answer UNIMPLEMENTED here.
     */
    private Response invoke(ExecOperation op, String requestJson, DriverRequest request) {
        if (slots.closed()) {
            throw new UnavailableException("exec driver " + executable + " is shutting down");
        }
        if (!init.operations().contains(op)) {
            throw new UnimplementedException(who(op) + ": not supported (init capabilities)");
        }
        return processes.run(op, requestJson, request.secrets(), request.deadline());
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
        private final Set<String> passed = new LinkedHashSet<>(DEFAULT_PASSED_ENVIRONMENT);
        private Path workingDirectory;
        private Containment containment = Containment.AUTO;
        private int maxConcurrentDrivers = defaultMaxConcurrentDrivers();

        private Builder() {}

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
                throw new IllegalArgumentException(
                        "passEnvironment: not a variable name: '" + SafeText.escape(name) + "'");
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

package io.volrep.spi.exec;

import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.exec.Response;
import io.volrep.spi.exec.internal.ProcessRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a driver's {@code init} negotiated (docs/exec-drivers.md): the operations it supports (those it does not mention
 * keep their {@linkplain ExecOperation#supportedByDefault() default}), the source kinds it accepts (volumes and volume
 * groups when it names none) and its volume group behaviours. A driver that answers {@code init} "Not supported"
 * keeps every default; one that fails, times out or prints nonsense is refused with {@link IllegalStateException}.
 *
 * @param operations the operations the driver runs ({@link ExecOperation#INIT} always included)
 * @param sourceKinds the source kinds the runtime accepts for it
 * @param groupBehaviours its {@code volumeGroupCapabilities}, behaviours only
 */
record DriverInit(
        Set<ExecOperation> operations,
        Set<ReplicationSource.Kind> sourceKinds,
        Set<VolumeGroupCapability> groupBehaviours) {
    private static final Logger LOG = LoggerFactory.getLogger(ExecDriver.class);
    /** The replication operations and their RPCs. */
    private static final Map<ExecOperation, Rpc> REPLICATION_RPCS = Map.of(
            ExecOperation.ENABLE, Rpc.ENABLE_VOLUME_REPLICATION,
            ExecOperation.DISABLE, Rpc.DISABLE_VOLUME_REPLICATION,
            ExecOperation.PROMOTE, Rpc.PROMOTE_VOLUME,
            ExecOperation.DEMOTE, Rpc.DEMOTE_VOLUME,
            ExecOperation.RESYNC, Rpc.RESYNC_VOLUME,
            ExecOperation.INFO, Rpc.GET_VOLUME_REPLICATION_INFO,
            ExecOperation.DESTINATION, Rpc.GET_REPLICATION_DESTINATION_INFO);

    private static final Set<ReplicationSource.Kind> DEFAULT_KINDS =
            Collections.unmodifiableSet(EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP));

    DriverInit {
        operations = Collections.unmodifiableSet(EnumSet.copyOf(operations));
        sourceKinds = Collections.unmodifiableSet(EnumSet.copyOf(sourceKinds));
        groupBehaviours =
                groupBehaviours.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(groupBehaviours));
    }

    /** Runs {@code <driver> init {}} once, outside admission (no call waits yet), and reads its answer. */
    static DriverInit negotiate(DriverProcesses driver) {
        Path executable = driver.executable();
        if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
            throw new IllegalStateException("exec driver " + executable + " is not an executable file");
        }
        Response init = answer(driver);
        Set<ExecOperation> ops = operations(executable, init);
        if (!ops.contains(ExecOperation.ENABLE) || !ops.contains(ExecOperation.DISABLE)) {
            LOG.warn(
                    "exec driver {} does not support enable and disable, which the replication spec requires",
                    executable);
        }
        if (ops.contains(ExecOperation.CREATE_GROUP) != ops.contains(ExecOperation.DELETE_GROUP)) {
            LOG.warn(
                    "exec driver {}: volume groups need both create-group and delete-group; the volume group"
                            + " service is not served",
                    executable);
        }
        return new DriverInit(ops, sourceKinds(executable, init), groupBehaviours(executable, init));
    }

    /** The replication RPCs of the operations turned on. */
    Set<Rpc> replicationRpcs() {
        Set<Rpc> rpcs = EnumSet.noneOf(Rpc.class);
        REPLICATION_RPCS.forEach((op, rpc) -> {
            if (operations.contains(op)) {
                rpcs.add(rpc);
            }
        });
        return Collections.unmodifiableSet(rpcs);
    }

    /** The RPC capabilities of the volume group operations turned on: {@code VOLUME_GROUP} and one per RPC. */
    Set<VolumeGroupCapability> groupRpcs() {
        Set<VolumeGroupCapability> served = EnumSet.of(VolumeGroupCapability.VOLUME_GROUP);
        if (operations.contains(ExecOperation.MODIFY_GROUP)) {
            served.add(VolumeGroupCapability.MODIFY_VOLUME_GROUP);
        }
        if (operations.contains(ExecOperation.GET_GROUP)) {
            served.add(VolumeGroupCapability.GET_VOLUME_GROUP);
        }
        if (operations.contains(ExecOperation.LIST_GROUPS)) {
            served.add(VolumeGroupCapability.LIST_VOLUME_GROUPS);
        }
        return Collections.unmodifiableSet(served);
    }

    private static Response answer(DriverProcesses driver) {
        String who = driver.who(ExecOperation.INIT);
        ProcessRunner.Result result;
        try {
            result = driver.launch(
                    ExecOperation.INIT,
                    ExecRequests.initRequest(),
                    ExecRequests.secrets(Secrets.empty()).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(who + ": cannot start the driver: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(who + ": interrupted", e);
        }
        boolean success = false;
        try {
            Response answer = driver.judge(who, result, Secrets.empty());
            success = true;
            return answer;
        } catch (UnimplementedException e) {
            // A driver without init: every operation keeps its default.
            success = true;
            LOG.info("{}: init not supported; using the default capabilities", who);
            return Response.getDefaultInstance();
        } catch (ReplicationException e) {
            throw new IllegalStateException(
                    "exec driver " + driver.executable() + " failed to initialize: " + e.getMessage(), e);
        } finally {
            driver.logStderr(who, result, Secrets.empty(), success, 0);
        }
    }

    private static Set<ExecOperation> operations(Path executable, Response init) {
        Map<ExecOperation, Boolean> declared = new EnumMap<>(ExecOperation.class);
        init.getCapabilitiesMap().forEach((name, value) -> {
            Optional<ExecOperation> op = ExecOperation.fromWireName(name);
            if (op.isEmpty()) {
                LOG.warn(
                        "exec driver {}: ignoring unknown capability \"{}\"",
                        executable,
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

    private static Set<ReplicationSource.Kind> sourceKinds(Path executable, Response init) {
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

    private static Set<VolumeGroupCapability> groupBehaviours(Path executable, Response init) {
        Set<VolumeGroupCapability> behaviours = EnumSet.noneOf(VolumeGroupCapability.class);
        for (String name : init.getVolumeGroupCapabilitiesList()) {
            VolumeGroupCapability c = null;
            try {
                c = VolumeGroupCapability.valueOf(name);
            } catch (IllegalArgumentException e) {
                // reported below
            }
            if (c == null || !c.isBehaviour()) {
                throw new IllegalStateException("exec driver " + executable + " failed to initialize: \""
                        + ExecProtocol.untrusted(name, 40) + "\" in volumeGroupCapabilities is not a volume group"
                        + " behaviour (expected LIMIT_VOLUME_TO_ONE_VOLUME_GROUP, DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES; the"
                        + " RPCs are turned on by their operations in capabilities)");
            }
            behaviours.add(c);
        }
        return behaviours;
    }
}

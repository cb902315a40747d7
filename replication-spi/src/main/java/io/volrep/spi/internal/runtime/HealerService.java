package io.volrep.spi.internal.runtime;

import io.grpc.stub.StreamObserver;
import io.volrep.api.CsiLimits;
import io.volrep.api.HealReport;
import io.volrep.api.Rpc;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.spi.CallDeadline;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import java.util.Objects;

/**
 * {@code healer.HealerNode} served by a {@link HealerDriver} through the {@link CallRunner}: the same
 * validation-first pipeline, per-key guard (the volume id), exception mapping and logging as replication.
 *
 * <pre>{@code
 * ServerServiceDefinition service = new HealerService(healer, runner).bindService();
 * }</pre>
 */
public final class HealerService extends HealerNodeGrpc.HealerNodeImplBase {
    private final HealerDriver driver;
    private final CallRunner runner;

    public HealerService(HealerDriver driver, CallRunner runner) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.runner = Objects.requireNonNull(runner, "runner");
    }

    /** The guard key of a volume: distinct from replication sources, since the runner qualifies it by service. */
    private record HealerVolume(String volumeId) {}

    @Override
    public void nodeHealer(NodeHealerRequest request, StreamObserver<NodeHealerResponse> observer) {
        runner.unary(Rpc.NODE_HEALER, request, observer, (r, deadline) -> {
            HealRequest typed = validated(r, deadline);
            return new CallRunner.Call<>(
                    new HealerVolume(typed.volumeId()),
                    "volume " + typed.volumeId(),
                    typed.secrets(),
                    () -> checked(driver.heal(typed)));
        });
    }

    /** The typed request, or an {@link io.volrep.api.InvalidArgumentException} naming the field. */
    static HealRequest validated(NodeHealerRequest r, CallDeadline deadline) {
        String volumeId = CsiLimits.requireId("volume_id", r.getVolumeId());
        String volumePath =
                RequestValidation.path("volume_path", r.getVolumePath(), true, false, HealRequest.MAX_PATH_BYTES);
        String staging = RequestValidation.path(
                "staging_target_path", r.getStagingTargetPath(), false, true, HealRequest.MAX_PATH_BYTES);
        HealRequest.Builder typed =
                HealRequest.builder().volumeId(volumeId).volumePath(volumePath).stagingTargetPath(staging);
        if (r.hasVolumeCapability()) {
            typed.capability(WireMapping.fromProto(r.getVolumeCapability()));
        }
        return typed.secrets(RequestValidation.secrets(r.getSecretsMap()))
                .volumeContext(CsiLimits.requireMapWithinLimit("volume_context", r.getVolumeContextMap()))
                .deadline(deadline)
                .build();
    }

    /** The driver's report on the wire, if it keeps the spec's {@link AnswerRules}: else an invalid driver answer. */
    private static NodeHealerResponse checked(HealReport report) {
        if (report == null) {
            throw new InvalidDriverResponseException("heal returned null; NodeHealerResponse.message is REQUIRED");
        }
        NodeHealerResponse answer = WireMapping.toProto(report);
        InvalidDriverResponseException.requireNoProblems("", AnswerRules.healer(answer));
        return answer;
    }
}

package io.volrep.testkit;

import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.wire.RequestFields;
import io.volrep.api.internal.wire.Transcoder;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.volumegroup.ControllerGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Builds raw requests for any replication RPC by field name and sends them through the generated method
 * descriptors of the plugin's spec revision: the suite must be able to send what a polite client refuses to send.
 * Checks name sources in the current revision's form ({@link Addressing}); this class re-encodes them in the
 * dialect's own messages (v0.1.3's {@code volumegroup = 1, volume = 2}; v0.1.0's {@code volume_id} only).
 */
final class Wire {
    private Wire() {}

    static MethodDescriptor<Message, Message> method(Rpc rpc) {
        return method(SpecDialect.CURRENT, rpc);
    }

    static MethodDescriptor<Message, Message> method(SpecDialect dialect, Rpc rpc) {
        if (rpc.isVolumeGroup() || rpc.isIdentity()) {
            return serviceMethod(rpc); // services with one revision: the dialect does not apply
        }
        Transcoder transcoder = Transcoder.of(dialect);
        if (!transcoder.defines(rpc)) {
            throw new IllegalArgumentException("not a replication.Controller method of spec " + dialect + ": " + rpc);
        }
        return transcoder.method(rpc);
    }

    @SuppressWarnings("unchecked")
    private static MethodDescriptor<Message, Message> serviceMethod(Rpc rpc) {
        MethodDescriptor<?, ?> method = switch (rpc) {
            case GET_IDENTITY -> IdentityGrpc.getGetIdentityMethod();
            case GET_CAPABILITIES -> IdentityGrpc.getGetCapabilitiesMethod();
            case PROBE -> IdentityGrpc.getProbeMethod();
            case CREATE_VOLUME_GROUP -> ControllerGrpc.getCreateVolumeGroupMethod();
            case MODIFY_VOLUME_GROUP_MEMBERSHIP -> ControllerGrpc.getModifyVolumeGroupMembershipMethod();
            case DELETE_VOLUME_GROUP -> ControllerGrpc.getDeleteVolumeGroupMethod();
            case LIST_VOLUME_GROUPS -> ControllerGrpc.getListVolumeGroupsMethod();
            case CONTROLLER_GET_VOLUME_GROUP -> ControllerGrpc.getControllerGetVolumeGroupMethod();
            default ->
                throw new IllegalArgumentException(
                        rpc + " is not a volumegroup.Controller or identity.Identity" + " method");
        };
        return (MethodDescriptor<Message, Message>) method;
    }

    /**
     * The current-revision request for {@code target} as {@code dialect} names it. Legacy revisions require
     * {@code volume_id}: unless {@code exact}, it is filled from the source's id when the target has none
     * (a v0.1.3 group source carries the group's id there, as volrep's client sends it).
     */
    static Addressing inDialect(SpecDialect dialect, Addressing target, boolean exact) {
        if (exact || !dialect.volumeIdRequired() || !target.volumeId().isEmpty() || target.source() == null) {
            return target;
        }
        ReplicationSource source = target.source();
        String id = source.hasVolume()
                ? source.getVolume().getVolumeId()
                : source.hasVolumegroup() ? source.getVolumegroup().getVolumeGroupId() : "";
        return new Addressing(source, id, target.label());
    }

    static Message request(
            SpecDialect dialect,
            Rpc rpc,
            Addressing target,
            Map<String, String> secrets,
            Map<String, String> parameters,
            boolean force) {
        Message current =
                new RequestFields(target.source(), target.volumeId(), parameters, secrets, "", force).toRequest(rpc);
        return Transcoder.of(dialect).requestAsIs(rpc, current);
    }

    /** The {@link Rpc} of a server-side method, if it is a replication method. */
    static Rpc rpcOf(ServerMethodDefinition<?, ?> definition) {
        return Rpc.fromMethodName(definition.getMethodDescriptor().getBareMethodName())
                .orElse(null);
    }

    /** A request for {@code rpc} addressing {@code target}, with {@code secrets} and, where the message has one, {@code force}. */
    static Message request(
            Rpc rpc, Addressing target, Map<String, String> secrets, Map<String, String> parameters, boolean force) {
        return request(SpecDialect.CURRENT, rpc, target, secrets, parameters, force);
    }

    /** True when {@code dialect}'s request of {@code rpc} has a field named {@code field}: the revision's shape as data. */
    static boolean requestHas(SpecDialect dialect, Rpc rpc, String field) {
        return dialect.supports(rpc) && has(method(dialect, rpc).getRequestMarshaller(), field);
    }

    /** True when {@code dialect}'s response of {@code rpc} has a field named {@code field}. */
    static boolean responseHas(SpecDialect dialect, Rpc rpc, String field) {
        return dialect.supports(rpc) && has(method(dialect, rpc).getResponseMarshaller(), field);
    }

    private static boolean has(MethodDescriptor.Marshaller<Message> marshaller, String field) {
        Message prototype = ((MethodDescriptor.PrototypeMarshaller<Message>) marshaller).getMessagePrototype();
        return prototype.getDescriptorForType().findFieldByName(field) != null;
    }

    /** One blocking call of {@code method}, as it is (no retries): its answer as an outcome. */
    static <Q extends Message, A extends Message> Outcome sendOnce(
            Channel channel, MethodDescriptor<Q, A> method, Rpc rpc, Q request, Duration timeout) {
        try {
            return new Outcome(
                    rpc, StatusCode.OK, "", ClientCalls.blockingUnaryCall(channel, method, options(timeout), request));
        } catch (StatusRuntimeException e) {
            return outcome(rpc, e.getStatus());
        }
    }

    static CallOptions options(Duration timeout) {
        return CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Sends one call and waits for its answer; never throws for a status. */
    static Outcome invoke(Channel channel, Rpc rpc, Message request, Duration timeout) {
        return invoke(channel, SpecDialect.CURRENT, rpc, request, timeout);
    }

    /** Sends one call of {@code dialect}'s service and waits for its answer; never throws for a status. */
    static Outcome invoke(Channel channel, SpecDialect dialect, Rpc rpc, Message request, Duration timeout) {
        try {
            Message response = ClientCalls.blockingUnaryCall(channel, method(dialect, rpc), options(timeout), request);
            return new Outcome(rpc, StatusCode.OK, "", response);
        } catch (StatusRuntimeException e) {
            return outcome(rpc, e.getStatus());
        }
    }

    /**
     * Sends {@code count} copies of one call at once (no settling, no retries) and returns every answer in the order
     * sent: an answer missing a second after {@code timeout} is 4 DEADLINE_EXCEEDED "no answer".
     */
    static List<Outcome> invokeAtOnce(
            Channel channel, SpecDialect dialect, Rpc rpc, Message request, int count, Duration timeout) {
        List<Future<Message>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(ClientCalls.futureUnaryCall(channel.newCall(method(dialect, rpc), options(timeout)), request));
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Future<Message> f : futures) {
            try {
                outcomes.add(
                        new Outcome(rpc, StatusCode.OK, "", f.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS)));
            } catch (ExecutionException e) {
                outcomes.add(outcome(
                        rpc,
                        e.getCause() instanceof StatusRuntimeException s
                                ? s.getStatus()
                                : Status.fromThrowable(e.getCause())));
            } catch (TimeoutException e) {
                outcomes.add(new Outcome(rpc, StatusCode.DEADLINE_EXCEEDED, "no answer", null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return outcomes;
    }

    static Outcome outcome(Rpc rpc, Status status) {
        String description = status.getDescription() == null ? "" : status.getDescription();
        return new Outcome(rpc, StatusCode.fromValue(status.getCode().value()), description, null);
    }
}

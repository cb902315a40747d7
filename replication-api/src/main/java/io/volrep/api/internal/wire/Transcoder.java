package io.volrep.api.internal.wire;

import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One transcoder between the current revision's messages and any {@link SpecDialect}'s, driven by the protobuf
 * descriptors: fields are matched by name (so v0.1.3's {@code volumegroup = 1, volume = 2} needs no code), and
 * the revision's rules are read from {@link SpecDialect} as data:
 * <ul>
 *   <li>which RPCs and fields exist: the revision's generated service ({@link SpecDialect#wireService()});</li>
 *   <li>which source kinds it can name ({@link SpecDialect#supports(ReplicationSource.Kind)});</li>
 *   <li>whether {@code volume_id} is REQUIRED and carries the source's id ({@link SpecDialect#volumeIdRequired()}),
 *   or is reserved and ignored (upstream HEAD, {@link SpecDialect#volumeIdReserved()}).</li>
 * </ul>
 * Requests written into a revision lose nothing: what the revision cannot say is a {@link NotExpressibleException}.
 * Responses written into a revision drop what it has no field for (its clients could not read it anyway, e.g.
 * v0.1.3's info has only {@code last_sync_time}). Reading a revision's message into the current one always
 * succeeds: the current revision is a superset of the others. The current revision transcodes to itself for free.
 *
 * <pre>{@code
 * Transcoder v013 = Transcoder.of(SpecDialect.V0_1_3);
 * Message wire = v013.requestToWire(Rpc.PROMOTE_VOLUME, currentPromoteRequest);   // volume_id filled in
 * Message current = v013.requestFromWire(Rpc.PROMOTE_VOLUME, wire);              // what the SPI validates
 * }</pre>
 */
public final class Transcoder {
    private static final Map<SpecDialect, Transcoder> BY_DIALECT = new EnumMap<>(SpecDialect.class);

    static {
        for (SpecDialect dialect : SpecDialect.values()) {
            BY_DIALECT.put(dialect, new Transcoder(dialect));
        }
    }

    private final SpecDialect dialect;
    private final ServiceDescriptor service;
    private final Map<Rpc, MethodDescriptor<Message, Message>> methods;

    private Transcoder(SpecDialect dialect) {
        this.dialect = dialect;
        this.service = dialect.wireService();
        Map<Rpc, MethodDescriptor<Message, Message>> byRpc = new EnumMap<>(Rpc.class);
        for (MethodDescriptor<?, ?> method : service.getMethods()) {
            @SuppressWarnings("unchecked")
            MethodDescriptor<Message, Message> m = (MethodDescriptor<Message, Message>) method;
            Rpc.fromMethodName(m.getBareMethodName()).ifPresent(rpc -> byRpc.put(rpc, m));
        }
        this.methods = Collections.unmodifiableMap(byRpc);
    }

    /** The transcoder of {@code dialect}. */
    public static Transcoder of(SpecDialect dialect) {
        return BY_DIALECT.get(dialect);
    }

    /** The revision this transcoder writes and reads. */
    public SpecDialect dialect() {
        return dialect;
    }

    /** The revision's {@code replication.Controller}, as its protos generate it. */
    public ServiceDescriptor service() {
        return service;
    }

    /** True when the revision defines {@code rpc}. */
    public boolean defines(Rpc rpc) {
        return methods.containsKey(rpc);
    }

    /** The RPCs the revision defines, in {@link Rpc} order. */
    public List<Rpc> rpcs() {
        return List.copyOf(methods.keySet());
    }

    /**
     * The revision's generated method for {@code rpc}.
     *
     * @throws NotExpressibleException when the revision has no such RPC
     */
    public MethodDescriptor<Message, Message> method(Rpc rpc) {
        MethodDescriptor<Message, Message> method = methods.get(rpc);
        if (method == null) {
            throw new NotExpressibleException("the RPC does not exist", rpc, dialect);
        }
        return method;
    }

    /**
     * A current-revision request written in this revision, losing nothing.
     *
     * @throws NotExpressibleException naming what the revision cannot say: the RPC, the source's kind, a field
     */
    public Message requestToWire(Rpc rpc, Message current) {
        MethodDescriptor<Message, Message> method = method(rpc);
        if (dialect == SpecDialect.CURRENT) {
            return current;
        }
        if (dialect.speaksCurrentMessages()) {
            // Upstream HEAD: the same messages, less what it reserves or lacks (field 1, a volumesnapshot source).
            FieldDescriptor sourceField = current.getDescriptorForType().findFieldByName(SOURCE);
            if (sourceField != null && current.hasField(sourceField)) {
                ((Message) current.getField(sourceField))
                        .getAllFields().keySet().stream()
                                .findFirst()
                                .filter(kind -> !dialect.supports(ReplicationSource.Kind.fromWireName(kind.getName())))
                                .ifPresent(kind -> {
                                    throw new NotExpressibleException("a " + kind.getName() + " source", rpc, dialect);
                                });
            }
            return withoutReservedVolumeId(current);
        }
        Message.Builder wire = newBuilder(method.getRequestMarshaller());
        FieldDescriptor sourceField = current.getDescriptorForType().findFieldByName(SOURCE);
        boolean addressedByVolumeId = false;
        if (sourceField != null && current.hasField(sourceField)) {
            Message source = (Message) current.getField(sourceField);
            var kindField = source.getAllFields().keySet().stream().findFirst();
            if (kindField.isPresent()) {
                String kind = kindField.get().getName();
                if (!dialect.supports(ReplicationSource.Kind.fromWireName(kind))) {
                    throw new NotExpressibleException("a " + kind + " source", rpc, dialect);
                }
                if (dialect.volumeIdRequired()) {
                    // The legacy rule: volume_id carries the source's id, a group's too.
                    Message inner = (Message) source.getField(kindField.get());
                    FieldDescriptor id =
                            inner.getDescriptorForType().getFields().get(0);
                    current = current.toBuilder()
                            .setField(current.getDescriptorForType().findFieldByName(VOLUME_ID), inner.getField(id))
                            .build();
                    addressedByVolumeId = wire.getDescriptorForType().findFieldByName(SOURCE) == null;
                }
            }
        }
        copy(current, wire, addressedByVolumeId ? SOURCE : null, rpc, "");
        return wire.build();
    }

    /**
     * A current-revision request written in this revision as it is, without the revision's rules: a request field
     * the revision lacks is left out, {@code volume_id} is not filled in. For conformance suites, which must send
     * what a polite client refuses to send.
     *
     * @throws IllegalArgumentException naming a set field inside a message that the revision's message lacks
     *                                  (e.g. {@code replication_source.volumesnapshot} in v0.1.3)
     */
    public Message requestAsIs(Rpc rpc, Message current) {
        MethodDescriptor<Message, Message> method = method(rpc);
        if (dialect.speaksCurrentMessages()) {
            return current; // a reserved field 1 too: the conformance suite checks that it is ignored
        }
        Message.Builder wire = newBuilder(method.getRequestMarshaller());
        copyFields(current, wire, null, "", path -> {
            if (path.indexOf('.') >= 0) {
                throw new IllegalArgumentException(path + " does not exist in spec revision " + dialect.cliName());
            }
        });
        return wire.build();
    }

    /**
     * A request this revision's client sent, read as the current revision's request (what the SPI validates).
     *
     * @throws InvalidArgumentException when the revision requires {@code volume_id} and it is missing or too long
     */
    public Message requestFromWire(Rpc rpc, Message wire) {
        if (dialect == SpecDialect.CURRENT) {
            return wire;
        }
        if (dialect.speaksCurrentMessages()) {
            // Read as upstream HEAD's own protos read it: field 1 and a volumesnapshot source are unknown fields.
            Message read = withoutReservedVolumeId(wire);
            FieldDescriptor sourceField = read.getDescriptorForType().findFieldByName(SOURCE);
            if (sourceField != null && read.hasField(sourceField)) {
                io.volrep.proto.replication.ReplicationSource source =
                        (io.volrep.proto.replication.ReplicationSource) read.getField(sourceField);
                if (source.hasVolumesnapshot() && !dialect.supports(ReplicationSource.Kind.VOLUME_SNAPSHOT)) {
                    read = read.toBuilder()
                            .setField(sourceField, io.volrep.proto.replication.ReplicationSource.getDefaultInstance())
                            .build();
                }
            }
            return read;
        }
        Message.Builder current =
                newBuilder(Transcoder.of(SpecDialect.CURRENT).method(rpc).getRequestMarshaller());
        if (dialect.volumeIdRequired()) {
            String volumeId = (String) wire.getField(wire.getDescriptorForType().findFieldByName(VOLUME_ID));
            if (volumeId.isEmpty()) {
                throw InvalidArgumentException.ofField(
                        VOLUME_ID, "required field is missing (REQUIRED in spec " + dialect.cliName() + ")");
            }
            CsiLimits.requireStringWithinLimit(VOLUME_ID, volumeId);
        }
        copy(wire, current, null, rpc, "");
        FieldDescriptor sourceField = current.getDescriptorForType().findFieldByName(SOURCE);
        if (dialect.volumeIdRequired()
                && current.hasField(sourceField)
                && !((io.volrep.proto.replication.ReplicationSource) current.getField(sourceField)).hasVolume()) {
            // volume_id carried a group's id (the revision requires it): the source names the group.
            current.clearField(current.getDescriptorForType().findFieldByName(VOLUME_ID));
        }
        return current.build();
    }

    /** A current-revision response written in this revision, without the fields the revision does not have. */
    public Message responseToWire(Rpc rpc, Message current) {
        if (dialect.speaksCurrentMessages()) {
            return current;
        }
        Message.Builder wire = newBuilder(method(rpc).getResponseMarshaller());
        copyPresent(current, wire);
        return wire.build();
    }

    /** A response of this revision read as the current revision's response. */
    public Message responseFromWire(Rpc rpc, Message wire) {
        if (dialect.speaksCurrentMessages()) {
            return wire;
        }
        Message.Builder current =
                newBuilder(Transcoder.of(SpecDialect.CURRENT).method(rpc).getResponseMarshaller());
        copy(wire, current, null, rpc, "");
        return current.build();
    }

    private static final String SOURCE = "replication_source";
    private static final String VOLUME_ID = "volume_id";

    /** {@code request} without field 1 where this revision reserves it; as it is otherwise. */
    private Message withoutReservedVolumeId(Message request) {
        FieldDescriptor volumeId = request.getDescriptorForType().findFieldByName(VOLUME_ID);
        return dialect.volumeIdReserved() && volumeId != null && request.hasField(volumeId)
                ? request.toBuilder().clearField(volumeId).build()
                : request;
    }

    private void copy(Message from, Message.Builder into, String skip, Rpc rpc, String path) {
        copyFields(from, into, skip, path, p -> {
            throw new NotExpressibleException(p, rpc, dialect);
        });
    }

    private static void copyPresent(Message from, Message.Builder into) {
        copyFields(from, into, null, "", p -> {
            // Dropped on purpose: the revision has no field for it.
        });
    }

    /** What to do with a set field the target type lacks (its path, e.g. {@code replication_source.volumesnapshot}). */
    private interface Missing {
        void field(String path);
    }

    private static void copyFields(Message from, Message.Builder into, String skip, String path, Missing missing) {
        for (Map.Entry<FieldDescriptor, Object> e : from.getAllFields().entrySet()) {
            FieldDescriptor field = e.getKey();
            String name = path + field.getName();
            FieldDescriptor target = into.getDescriptorForType().findFieldByName(field.getName());
            if (field.getName().equals(skip)) {
                continue;
            }
            if (target == null) {
                missing.field(name);
                continue;
            }
            if (field.isRepeated()) {
                for (Object element : (List<?>) e.getValue()) {
                    into.addRepeatedField(target, value(field, target, element, into, name, missing));
                }
            } else {
                into.setField(target, value(field, target, e.getValue(), into, name, missing));
            }
        }
    }

    private static Object value(
            FieldDescriptor field,
            FieldDescriptor target,
            Object value,
            Message.Builder into,
            String path,
            Missing missing) {
        return switch (field.getJavaType()) {
            case MESSAGE -> {
                Message message = (Message) value;
                if (message.getDescriptorForType().equals(target.getMessageType())) {
                    yield message;
                }
                Message.Builder inner = into.newBuilderForField(target);
                copyFields(message, inner, null, path + ".", missing);
                yield inner.build();
            }
            case ENUM -> {
                EnumValueDescriptor v = target.getEnumType().findValueByName(((EnumValueDescriptor) value).getName());
                if (v == null) {
                    missing.field(path + "=" + ((EnumValueDescriptor) value).getName());
                    yield target.getEnumType().getValues().get(0);
                }
                yield v;
            }
            default -> value;
        };
    }

    /** An empty builder of the message a method's marshaller reads and writes. */
    private static Message.Builder newBuilder(MethodDescriptor.Marshaller<Message> marshaller) {
        if (marshaller instanceof MethodDescriptor.PrototypeMarshaller<Message> proto) {
            return proto.getMessagePrototype().newBuilderForType();
        }
        throw new IllegalStateException("not a protobuf marshaller: " + marshaller);
    }
}

package io.volrep.spi.internal.runtime;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.wire.Transcoder;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The field a rejected request named, as observers see it ({@link io.volrep.spi.ServerCallEvent#rejectedField()}):
 * a field path of the RPC's request message without indexes or keys ({@code volume_ids[17]} is {@code volume_ids}),
 * or nothing when the path is not one of that message's. So the value comes from a closed set, the request schema's
 * paths, whatever a caller sends: metrics tag rejections with it, and many distinct bad requests must not make as
 * many series (issue 45: 2,000 CreateVolumeGroup requests, each with an empty id at another index, once made 2,000).
 *
 * <pre>{@code
 * RejectedFields.inSchema(Rpc.CREATE_VOLUME_GROUP, request, Optional.of("volume_ids[17]"));  // Optional[volume_ids]
 * RejectedFields.inSchema(Rpc.CREATE_VOLUME_GROUP, request, Optional.of("no_such_field"));    // Optional.empty
 * }</pre>
 */
final class RejectedFields {
    private static final Pattern INDEX_OR_KEY = Pattern.compile("\\[[^\\]]*\\]");

    private RejectedFields() {}

    /**
     * {@code field} without its indexes, when it is a path of {@code rpc}'s request message: replication requests are
     * validated as the current revision's message, whatever revision they arrived in, so their paths are that
     * message's; the others' are the request's own.
     */
    static Optional<String> inSchema(Rpc rpc, Message request, Optional<String> field) {
        if (field.isEmpty()) {
            return field;
        }
        String path = INDEX_OR_KEY.matcher(field.get()).replaceAll("");
        Descriptor schema = rpc.isReplication() ? currentRequest(rpc) : request.getDescriptorForType();
        return isPath(schema, path) ? Optional.of(path) : Optional.empty();
    }

    private static Descriptor currentRequest(Rpc rpc) {
        MethodDescriptor.Marshaller<Message> marshaller =
                Transcoder.of(SpecDialect.CURRENT).method(rpc).getRequestMarshaller();
        return ((MethodDescriptor.PrototypeMarshaller<Message>) marshaller)
                .getMessagePrototype()
                .getDescriptorForType();
    }

    /** True when {@code path} names a field of {@code message} (dot-separated; the last part may name a oneof). */
    private static boolean isPath(Descriptor message, String path) {
        String[] parts = path.split("\\.", -1);
        Descriptor at = message;
        for (int i = 0; i < parts.length; i++) {
            String name = parts[i];
            FieldDescriptor f = at.findFieldByName(name);
            boolean last = i == parts.length - 1;
            if (f == null) {
                return last && at.getOneofs().stream().anyMatch(o -> o.getName().equals(name));
            }
            if (!last) {
                if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE || f.isMapField()) {
                    return false;
                }
                at = f.getMessageType();
            }
        }
        return true;
    }
}

package io.volrep.testsupport;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Bytes as they are, for tests that send or serve what no generated stub would (malformed requests, fuzz input,
 * answers byte for byte): one gRPC marshaller, and the unary method that uses it both ways.
 *
 * <pre>{@code
 * MethodDescriptor<byte[], byte[]> enable = RawBytes.unary("replication.Controller/EnableVolumeReplication");
 * ClientCalls.blockingUnaryCall(channel, enable, CallOptions.DEFAULT, new byte[] {0x0a, 0x05, 'v'});
 * }</pre>
 */
public enum RawBytes implements MethodDescriptor.Marshaller<byte[]> {
    /** The marshaller. */
    MARSHALLER;

    /** A unary method named {@code fullMethodName} ({@code service/Method}) whose request and response are bytes. */
    public static MethodDescriptor<byte[], byte[]> unary(String fullMethodName) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(fullMethodName)
                .setRequestMarshaller(MARSHALLER)
                .setResponseMarshaller(MARSHALLER)
                .build();
    }

    @Override
    public InputStream stream(byte[] value) {
        return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
        try {
            return stream.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.MethodDescriptor;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link WireDialect#method} finds every RPC's gRPC method: the replication service's through the dialect, the
 * single-revision services' (Identity, volume groups, NodeHealer) in their generated descriptors, for every dialect.
 */
class WireDialectMethodsTest {

    @Test
    void everyRpcHasTheMethodOfItsFullNameAsUnaryInEveryDialectThatDefinesIt() {
        for (SpecDialect dialect : SpecDialect.values()) {
            WireDialect wire = WireDialect.of(dialect, true);
            Arrays.stream(Rpc.values())
                    .filter(rpc -> !rpc.isReplication() || dialect == SpecDialect.CURRENT)
                    .forEach(rpc -> {
                        MethodDescriptor<?, ?> method = wire.method(rpc);
                        assertThat(method.getFullMethodName())
                                .as("%s in %s", rpc, dialect)
                                .isEqualTo(rpc.fullMethodName());
                        assertThat(method.getType()).isEqualTo(MethodDescriptor.MethodType.UNARY);
                    });
        }
    }

    @Test
    void aSingleRevisionSpecSendsItsRpcsMethod() {
        WireDialect wire = WireDialect.of(SpecDialect.V0_1_0, true);

        assertThat(wire.method(Rpc.PROBE).getFullMethodName()).isEqualTo("identity.Identity/Probe");
        assertThat(wire.method(Rpc.DELETE_VOLUME_GROUP).getFullMethodName())
                .isEqualTo("volumegroup.Controller/DeleteVolumeGroup");
    }
}

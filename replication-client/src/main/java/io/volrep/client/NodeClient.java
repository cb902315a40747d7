package io.volrep.client;

import java.nio.file.Path;

/**
 * The node-plugin operations (today: NodeHealer); from {@link ReplicationClient#node()}. Point the client at the
 * node plugin's socket, which is usually not the controller's.
 *
 * <pre>{@code
 * try (ReplicationClient node = ReplicationClient.builder().target("unix:///csi/csi-addons.sock").build()) {
 *     HealReport r = node.node().heal("vol-3", Path.of("/mnt/vol-3")).call();
 * }
 * }</pre>
 */
public final class NodeClient {
    private final CallEngine engine;

    NodeClient(CallEngine engine) {
        this.engine = engine;
    }

    /** NodeHealer for {@code volumeId}, available at {@code volumePath}; see {@link HealCall}. */
    public HealCall heal(String volumeId, Path volumePath) {
        return new HealCall(engine, volumeId, volumePath);
    }

    @Override
    public String toString() {
        return "NodeClient";
    }
}

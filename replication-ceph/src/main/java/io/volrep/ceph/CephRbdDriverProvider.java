package io.volrep.ceph;

import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationDriverProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Makes the {@link CephRbdDriver} discoverable as {@code "ceph-rbd"} through {@link java.util.ServiceLoader}.
 * Configuration keys: {@code cephConf} (required), {@code pool} (required), {@code clientId} (default
 * {@code admin}), {@code timeout} (seconds, default 30), {@code maxConcurrentCalls} (default 32).
 *
 * <pre>{@code
 * ReplicationDriver driver = ReplicationDriverProvider.find("ceph-rbd").orElseThrow()
 *         .create(Map.of("cephConf", "/etc/ceph/site-a.conf", "pool", "rbd"));
 * }</pre>
 */
public final class CephRbdDriverProvider implements ReplicationDriverProvider {
    @Override
    public String name() {
        return "ceph-rbd";
    }

    /** Needs configuration: fails, naming the keys. */
    @Override
    public ReplicationDriver create() {
        return create(Map.of());
    }

    @Override
    public ReplicationDriver create(Map<String, String> config) {
        String conf = config.get("cephConf");
        String pool = config.get("pool");
        if (conf == null || pool == null) {
            throw new IllegalStateException(
                    "ceph-rbd needs the configuration keys cephConf (a ceph.conf path) and" + " pool");
        }
        CephRbdDriver.Builder b =
                CephRbdDriver.builder().cephConf(Path.of(conf)).pool(pool);
        if (config.containsKey("clientId")) {
            b.clientId(config.get("clientId"));
        }
        if (config.containsKey("maxConcurrentCalls")) {
            b.maxConcurrentCalls(Integer.parseInt(config.get("maxConcurrentCalls")));
        }
        if (config.containsKey("timeout")) {
            b.timeout(Duration.ofSeconds(Long.parseLong(config.get("timeout"))));
        }
        return b.build();
    }
}

package io.volrep.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Makes a driver discoverable with {@link ServiceLoader}: list the implementation's class name in
 * {@code META-INF/services/io.volrep.spi.ReplicationDriverProvider} of the vendor's jar.
 *
 * <pre>{@code
 * public final class MyDriverProvider implements ReplicationDriverProvider {
 *     public String name() { return "my-storage"; }
 *     public ReplicationDriver create(Map<String, String> config) { return new MyDriver(config.get("endpoint")); }
 * }
 *
 * ReplicationDriver driver = ReplicationDriverProvider.find("my-storage").orElseThrow().create(Map.of());
 * }</pre>
 */
public interface ReplicationDriverProvider {

    /** A short, stable name to select the driver by, e.g. {@code "reference"}. Defaults to the class name. */
    default String name() {
        return getClass().getName();
    }

    /** A new driver with default configuration. */
    ReplicationDriver create();

    /**
     * A new driver configured by {@code config} (vendor-defined keys, e.g. from the embedding program's own
     * configuration). Defaults to {@link #create()}, ignoring the configuration.
     */
    default ReplicationDriver create(Map<String, String> config) {
        return create();
    }

    /** Every provider on the class path of the context class loader, in discovery order. */
    static List<ReplicationDriverProvider> discover() {
        List<ReplicationDriverProvider> providers = new ArrayList<>();
        ServiceLoader.load(ReplicationDriverProvider.class).forEach(providers::add);
        return providers;
    }

    /** The discovered provider called {@code name}. */
    static Optional<ReplicationDriverProvider> find(String name) {
        return discover().stream().filter(p -> p.name().equals(name)).findFirst();
    }
}

package io.volrep.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Makes a {@link HealerDriver} discoverable with {@link ServiceLoader}: list the implementation's class name in
 * {@code META-INF/services/io.volrep.spi.HealerDriverProvider} of the vendor's jar.
 *
 * <pre>{@code
 * public final class MyHealerProvider implements HealerDriverProvider {
 *     public String name() { return "my-storage"; }
 *     public HealerDriver create(Map<String, String> config) { return new MyHealer(config.get("mountRoot")); }
 * }
 *
 * HealerDriver healer = HealerDriverProvider.find("my-storage").orElseThrow().create(Map.of());
 * }</pre>
 */
public interface HealerDriverProvider {

    /** A short, stable name to select the healer by, e.g. {@code "reference"}. Defaults to the class name. */
    default String name() {
        return getClass().getName();
    }

    /** A new healer configured by {@code config} (vendor-defined keys). */
    HealerDriver create(Map<String, String> config);

    /** Every provider on the class path of the context class loader, in discovery order. */
    static List<HealerDriverProvider> discover() {
        return Providers.discover(HealerDriverProvider.class);
    }

    /** The discovered provider called {@code name}. */
    static Optional<HealerDriverProvider> find(String name) {
        return Providers.find(HealerDriverProvider.class, HealerDriverProvider::name, name);
    }
}

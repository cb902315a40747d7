package io.volrep.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Function;

/** The discovery {@link ReplicationDriverProvider} and {@link HealerDriverProvider} share. */
final class Providers {
    private Providers() {
    }

    /** Every provider of {@code type} on the class path of the context class loader, in discovery order. */
    static <P> List<P> discover(Class<P> type) {
        List<P> providers = new ArrayList<>();
        ServiceLoader.load(type).forEach(providers::add);
        return providers;
    }

    /** The first discovered provider of {@code type} whose {@code nameOf} is {@code name}. */
    static <P> Optional<P> find(Class<P> type, Function<P, String> nameOf, String name) {
        return discover(type).stream().filter(p -> nameOf.apply(p).equals(name)).findFirst();
    }
}

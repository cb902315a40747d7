package io.volrep.examples;

/** A vendor's healer, for the docs. */
final class MyHealer implements io.volrep.spi.HealerDriver {
    @Override
    public io.volrep.api.HealReport heal(io.volrep.spi.HealRequest request) {
        return io.volrep.api.HealReport.healthy("clean");
    }
}

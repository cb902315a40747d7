package io.volrep.examples;

/** A vendor's driver, for the docs. */
final class MyDriver implements io.volrep.spi.ReplicationDriver {
    @Override
    public void enable(io.volrep.spi.EnableRequest request) {}

    @Override
    public void disable(io.volrep.spi.DisableRequest request) {}
}

package io.volrep.examples;

import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ReplicationDriver;

/** A vendor's driver, for the docs. */
final class MyDriver implements ReplicationDriver {
    @Override
    public void enable(EnableRequest request) {}

    @Override
    public void disable(DisableRequest request) {}
}

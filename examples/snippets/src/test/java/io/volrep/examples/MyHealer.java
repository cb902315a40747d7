package io.volrep.examples;

import io.volrep.api.HealReport;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;

/** A vendor's healer, for the docs. */
final class MyHealer implements HealerDriver {
    @Override
    public HealReport heal(HealRequest request) {
        return HealReport.healthy("clean");
    }
}

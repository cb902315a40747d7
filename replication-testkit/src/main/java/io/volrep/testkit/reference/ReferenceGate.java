package io.volrep.testkit.reference;

import io.volrep.api.Secrets;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.UnknownErrorException;
import java.time.Duration;

/**
 * What every call of the reference plugin passes first, whatever its service: its latency, then its secrets (a caller
 * that cannot authenticate learns nothing, not even whether a source exists).
 */
final class ReferenceGate {
    private final Duration latency;
    private final Secrets requiredSecrets;

    ReferenceGate(Duration latency, Secrets requiredSecrets) {
        this.latency = latency;
        this.requiredSecrets = requiredSecrets;
    }

    /** Waits out the latency, then checks the secrets: 16 UNAUTHENTICATED unless every required one is there. */
    void pass(Secrets secrets) {
        sleepLatency();
        for (String key : requiredSecrets.keys()) {
            if (!secrets.get(key).equals(requiredSecrets.get(key))) {
                throw new UnauthenticatedException("secrets are missing or invalid (secret \"" + key + "\")");
            }
        }
    }

    private void sleepLatency() {
        if (latency.isZero()) {
            return;
        }
        try {
            Thread.sleep(latency.toMillis(), latency.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnknownErrorException("interrupted");
        }
    }
}

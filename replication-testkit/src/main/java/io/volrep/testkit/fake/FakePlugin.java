package io.volrep.testkit.fake;

import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A scriptable replication plugin for testing orchestrators: the reference driver (spec semantics, in
 * memory) served by the real SPI runtime, with a {@link FaultInjector} in front. Script failures, latency and
 * protocol violations; read back every call with its request (secrets masked) and the code it got.
 *
 * <pre>{@code
 * try (FakePlugin fake = FakePlugin.builder().volumes(2).requiredSecret("user", "admin").start()) {
 *     fake.failNext(Rpc.PROMOTE_VOLUME, 2, StatusCode.ABORTED);          // then the real answer
 *     fake.failNext(Rpc.DEMOTE_VOLUME, 1, StatusCode.UNAVAILABLE, Duration.ofMillis(200)); // + retry pushback
 *     fake.latency(Rpc.RESYNC_VOLUME, Duration.ofMillis(50));
 *     fake.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME);
 *     fake.refuseAfter(Rpc.DEMOTE_VOLUME, Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION,
 *             FaultInjector.Window.calls(2));                             // real storage's "not yet"
 *
 *     myController.reconcile(fake.address());                             // "inprocess:volrep-fake-..."
 *
 *     assertThat(fake.calls(Rpc.PROMOTE_VOLUME)).extracting(RecordedCall::code)
 *             .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.FAILED_PRECONDITION);
 * }
 * }</pre>
 * Listen on a unix socket instead with {@code .listen("unix:///tmp/x/csi-addons.sock")} to test a
 * controller in another process. With JUnit 5, {@link FakePluginExtension} starts and stops it.
 */
public final class FakePlugin implements AutoCloseable {
    private final ReferenceDriver driver;
    private final FaultInjector faults;
    private final ReplicationServer server;

    /** Serves {@code driver} on {@code listen} behind a new fault injector. */
    private FakePlugin(ReferenceDriver driver, String listen) {
        this.driver = driver;
        this.faults = new FaultInjector();
        try {
            this.server = ReplicationServer.builder()
                    .driver(driver)
                    .interceptor(faults)
                    .listen(listen)
                    .gracePeriod(Duration.ZERO)
                    .build()
                    .start();
        } catch (RuntimeException e) {
            faults.close(); // its scheduler thread would outlive a fake that never started
            throw e;
        }
    }

    /** A new builder: no fixtures yet, in-process address, no secrets. */
    public static Builder builder() {
        return new Builder();
    }

    /** The address to dial: {@code inprocess:NAME}, {@code unix:///path} or {@code host:port}. */
    public String address() {
        return server.address();
    }

    /** The reference driver behind the fake, to read or reset source state. */
    public ReferenceDriver driver() {
        return driver;
    }

    /** The fault injector, to share it or script it directly. */
    public FaultInjector faults() {
        return faults;
    }

    /** The next {@code n} calls of {@code rpc} fail with {@code code}; the driver never sees them. */
    public FakePlugin failNext(Rpc rpc, int n, StatusCode code) {
        return script(f -> f.failNext(rpc, n, code));
    }

    /** As {@link #failNext(Rpc, int, StatusCode)}, with a {@code grpc-retry-pushback-ms} trailer of {@code pushback}. */
    public FakePlugin failNext(Rpc rpc, int n, StatusCode code, Duration pushback) {
        return script(f -> f.failNext(rpc, n, code, pushback));
    }

    /**
     * Opens a refusal window now: unforced calls of {@code rpc} for {@code source} (null: any) fail with
     * {@code code} within {@code window} ({@link FaultInjector#refuse}).
     */
    public FakePlugin refuse(Rpc rpc, ReplicationSource source, StatusCode code, FaultInjector.Window window) {
        return script(f -> f.refuse(rpc, source, code, window));
    }

    /**
     * After each call of {@code trigger} answered OK, unforced calls of {@code rpc} for the same source fail with
     * {@code code} within {@code window} ({@link FaultInjector#refuseAfter}): real storage's "not yet" after a state
     * change.
     *
     * <pre>{@code
     * fake.refuseAfter(Rpc.DEMOTE_VOLUME, Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION,
     *         FaultInjector.Window.lasting(Duration.ofSeconds(2)));
     * }</pre>
     */
    public FakePlugin refuseAfter(Rpc trigger, Rpc rpc, StatusCode code, FaultInjector.Window window) {
        return script(f -> f.refuseAfter(trigger, rpc, code, window));
    }

    /** Every call of {@code rpc} is answered {@code delay} late (zero removes it). */
    public FakePlugin latency(Rpc rpc, Duration delay) {
        return script(f -> f.latency(rpc, delay));
    }

    /** Every info answer from now on breaks the protocol this way ({@link InfoViolation#NONE} to stop). */
    public FakePlugin violateInfo(InfoViolation violation) {
        return script(f -> f.violateInfo(violation));
    }

    /** Runs one step on the fault injector (a scripted fault, or forgetting the record), then returns this fake. */
    private FakePlugin script(Consumer<FaultInjector> step) {
        step.accept(faults);
        return this;
    }

    /** Every answered call, in answer order. */
    public List<RecordedCall> calls() {
        return faults.calls();
    }

    /** The answered calls of {@code rpc}. */
    public List<RecordedCall> calls(Rpc rpc) {
        return faults.calls(rpc);
    }

    /** Forgets recorded calls. */
    public FakePlugin clearCalls() {
        return script(FaultInjector::clearCalls);
    }

    /**
     * Back to the start: every source disabled and primary, no scripted faults (refusal windows and their hooks
     * included), no recorded calls.
     */
    public FakePlugin reset() {
        driver.reset();
        faults.clearFaults();
        faults.clearCalls();
        return this;
    }

    /** Stops the server at once (no grace period) and the injector. */
    @Override
    public void close() {
        try {
            server.close();
        } finally {
            faults.close();
        }
    }

    @Override
    public String toString() {
        return "FakePlugin[" + address() + "]";
    }

    /** Builds a {@link FakePlugin}. */
    public static final class Builder {
        private final ReferenceDriver.Builder driver = ReferenceDriver.builder();
        private ReferenceDriver prebuilt;
        private String listen;

        private Builder() {}

        /** Volumes {@code vol-0} .. {@code vol-(n-1)}. */
        public Builder volumes(int n) {
            return fixture(d -> d.volumes(n));
        }

        /** A volume with this id. */
        public Builder volume(String id) {
            return fixture(d -> d.volume(id));
        }

        /** Volume groups {@code grp-0} .. {@code grp-(n-1)}. */
        public Builder groups(int n) {
            return fixture(d -> d.groups(n));
        }

        /** A volume group with this id. */
        public Builder group(String id) {
            return fixture(d -> d.group(id));
        }

        /** Every call must carry this secret (else 16 UNAUTHENTICATED). */
        public Builder requiredSecret(String key, String value) {
            return fixture(d -> d.requiredSecret(key, value));
        }

        /** Which resync call reports ready (default 2). */
        public Builder resyncCallsUntilReady(int calls) {
            return fixture(d -> d.resyncCallsUntilReady(calls));
        }

        /** Use this driver instead of building one from the fixture settings above. */
        public Builder driver(ReferenceDriver driver) {
            this.prebuilt = Objects.requireNonNull(driver, "driver");
            return this;
        }

        /** Where to listen (default a fresh {@code inprocess:} name): {@code unix:///path}, {@code 127.0.0.1:0}. */
        public Builder listen(String address) {
            this.listen = Objects.requireNonNull(address, "address");
            return this;
        }

        /** Sets one fixture on the reference driver's builder, then returns this builder. */
        private Builder fixture(Consumer<ReferenceDriver.Builder> setting) {
            setting.accept(driver);
            return this;
        }

        /** Starts the plugin. */
        public FakePlugin start() {
            return new FakePlugin(
                    prebuilt != null ? prebuilt : driver.build(),
                    listen != null ? listen : "inprocess:volrep-fake-" + InProcessServerBuilder.generateName());
        }
    }
}

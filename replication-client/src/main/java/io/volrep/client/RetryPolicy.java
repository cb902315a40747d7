package io.volrep.client;

import io.volrep.api.ErrorScheme;
import io.volrep.api.Recovery;
import io.volrep.api.internal.Arguments;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * How the client retries a failed call: an immutable value with a builder and {@link #toBuilder()}, after gax's
 * {@code RetrySettings}: a setting added later is one more builder method, never a broken caller.
 *
 * <p>{@link #spec()} follows the spec's recovery table ({@link ErrorScheme}): it never retries
 * {@link Recovery#FIX_REQUEST}, {@link Recovery#NEVER}, {@link Recovery#INSPECT_LOGS} and
 * {@link Recovery#ENSURE_PRECONDITION}; it backs off exponentially with full jitter on {@link Recovery#BACKOFF}
 * (ABORTED and the transport codes); it retries NOT_FOUND only when the client's {@link SourceVerifier}
 * approves the source; and it retries UNAUTHENTICATED once, after {@link SecretsProvider#renew} gave new
 * secrets. A plugin's {@code grpc-retry-pushback-ms} trailer replaces the computed delay; a negative or
 * malformed one stops the retries, as gRPC's retry design says.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.spec().toBuilder()
 *         .maxAttempts(8)                                   // counts the first call
 *         .initialBackoff(Duration.ofMillis(200))
 *         .maxBackoff(Duration.ofSeconds(10))
 *         .totalTimeout(Duration.ofMinutes(5))
 *         .build();
 * Duration budget = policy.totalTimeout();
 * }</pre>
 *
 * <p>The delay before retry {@code n} (n = 1 for the first retry) is
 * {@code min(maxBackoff, initialBackoff * multiplier^(n-1))}; with {@link Jitter#FULL} it is a uniformly random
 * value between zero and that cap, with {@link Jitter#EQUAL} one in {@code [cap/2, cap)}, with {@link Jitter#NONE}
 * the cap itself. A retry whose delay would end after {@code totalTimeout} (measured on
 * {@link #clock()} from the first attempt) is not made. {@link #random()} and {@link #clock()} are injectable so
 * tests are deterministic. Two policies with the same settings are {@code equals}.
 */
public final class RetryPolicy {
    /** What the client does after an error of a {@link Recovery} class. */
    public enum Action {
        /** Surface the error; no retry. */
        FAIL,
        /** Retry with exponential back-off. */
        BACKOFF,
        /** Ask the client's {@link SourceVerifier}; retry with back-off only when it approves, else surface. */
        VERIFY_THEN_BACKOFF,
        /** Ask {@link SecretsProvider#renew}; retry once (immediately) when it gives different secrets, else surface. */
        RENEW_THEN_RETRY
    }

    /** How the computed back-off is randomized. */
    public enum Jitter {
        /** A uniformly random delay between zero and the exponential cap ("full jitter"); the default. */
        FULL,
        /**
         * A uniformly random delay in {@code [cap/2, cap)} ("equal jitter"): still spread out, but with a
         * multiplier of at least 2 each gap is longer than the one before (until {@code maxBackoff} caps them),
         * which a single caller watching its own retries expects to see.
         */
        EQUAL,
        /** Exactly the exponential cap: deterministic, growing gaps. */
        NONE
    }

    private static final RetryPolicy SPEC = new Builder().build();
    private static final RetryPolicy NO_RETRY = SPEC.toBuilder().maxAttempts(1).build();

    private final int maxAttempts;
    private final Duration initialBackoff;
    private final double multiplier;
    private final Duration maxBackoff;
    private final Duration totalTimeout;
    private final Duration perAttemptTimeout;
    private final Jitter jitter;
    private final Map<Recovery, Action> actions;
    private final Clock clock;
    private final RandomGenerator random;
    private final boolean failFast;

    /** Checks what the setters cannot check alone: the back-off bounds against each other. */
    private RetryPolicy(Builder b) {
        if (b.maxBackoff.compareTo(b.initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "maxBackoff " + b.maxBackoff + " is smaller than initialBackoff " + b.initialBackoff);
        }
        this.maxAttempts = b.maxAttempts;
        this.initialBackoff = b.initialBackoff;
        this.multiplier = b.multiplier;
        this.maxBackoff = b.maxBackoff;
        this.totalTimeout = b.totalTimeout;
        this.perAttemptTimeout = b.perAttemptTimeout;
        this.jitter = b.jitter;
        this.actions = Collections.unmodifiableMap(new EnumMap<>(b.actions));
        this.clock = b.clock;
        this.random = b.random;
        this.failFast = b.failFast;
    }

    /**
     * The default policy, following the spec's recovery table: 5 attempts, back-off from 500 ms doubling to at
     * most 30 s with full jitter, 3 minutes per attempt, 10 minutes in total.
     */
    public static RetryPolicy spec() {
        return SPEC;
    }

    /** A policy that makes exactly one call, whatever the code. */
    public static RetryPolicy noRetries() {
        return NO_RETRY;
    }

    /** A builder starting from {@link #spec()}'s values. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this policy's values. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The most calls made for one request, the first included; at least 1. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The delay cap before the first retry; not negative. */
    public Duration initialBackoff() {
        return initialBackoff;
    }

    /** The factor by which the delay cap grows per retry; at least 1. */
    public double multiplier() {
        return multiplier;
    }

    /** The largest delay between two attempts; not smaller than {@link #initialBackoff()}. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** The budget for all attempts and delays of one request, from its first attempt. */
    public Duration totalTimeout() {
        return totalTimeout;
    }

    /** The gRPC deadline of each attempt (capped by what is left of {@link #totalTimeout()}). */
    public Duration perAttemptTimeout() {
        return perAttemptTimeout;
    }

    /** How delays are randomized. */
    public Jitter jitter() {
        return jitter;
    }

    /**
     * What is done after an error of each {@link Recovery} class: every class mapped, {@link Recovery#NEVER} only to
     * {@link Action#FAIL}; unmodifiable. See {@link #action(Recovery)}.
     */
    public Map<Recovery, Action> actions() {
        return actions;
    }

    /** The clock deadlines are measured on. */
    public Clock clock() {
        return clock;
    }

    /** The source of jitter. */
    public RandomGenerator random() {
        return random;
    }

    /**
     * False by default: a call that cannot reach the plugin waits for it (gRPC's wait-for-ready), within
     * {@link #perAttemptTimeout()} and {@link #totalTimeout()}, and such attempts do not count against
     * {@link #maxAttempts()}. True: a connection failure fails the attempt at once and counts like an UNAVAILABLE
     * answer. See {@link Builder#failFast(boolean)}.
     */
    public boolean failFast() {
        return failFast;
    }

    /** What is done after an error of class {@code recovery}. */
    public Action action(Recovery recovery) {
        return actions.get(recovery);
    }

    /** The exponential cap for retry {@code retry} (1 = the first retry), before jitter. */
    public Duration backoffCap(int retry) {
        double millis = initialBackoff.toMillis() * Math.pow(multiplier, Math.max(0, retry - 1));
        long capped = (long) Math.min(millis, (double) maxBackoff.toMillis());
        return Duration.ofMillis(capped);
    }

    /** The delay before retry {@code retry} (1 = the first retry), jitter applied. */
    public Duration backoff(int retry) {
        long cap = backoffCap(retry).toMillis();
        if (jitter == Jitter.NONE || cap == 0) {
            return Duration.ofMillis(cap);
        }
        if (jitter == Jitter.EQUAL) {
            long half = cap / 2;
            // [half, cap): the next cap (>= 2 * cap) starts at or above this one's exclusive end: strictly growing.
            return Duration.ofMillis(half + random.nextLong(cap - half));
        }
        return Duration.ofMillis(random.nextLong(cap + 1));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicy p
                && maxAttempts == p.maxAttempts
                && Double.compare(multiplier, p.multiplier) == 0
                && failFast == p.failFast
                && initialBackoff.equals(p.initialBackoff)
                && maxBackoff.equals(p.maxBackoff)
                && totalTimeout.equals(p.totalTimeout)
                && perAttemptTimeout.equals(p.perAttemptTimeout)
                && jitter == p.jitter
                && actions.equals(p.actions)
                && clock.equals(p.clock)
                && random.equals(p.random);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                maxAttempts,
                initialBackoff,
                multiplier,
                maxBackoff,
                totalTimeout,
                perAttemptTimeout,
                jitter,
                actions,
                clock,
                random,
                failFast);
    }

    /** The settings; the clock and the random generator are left out, as their own text says nothing useful. */
    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", initialBackoff=" + initialBackoff + ", multiplier="
                + multiplier + ", maxBackoff=" + maxBackoff + ", totalTimeout=" + totalTimeout
                + ", perAttemptTimeout=" + perAttemptTimeout + ", jitter=" + jitter + ", failFast=" + failFast
                + ", actions=" + actions + "]";
    }

    /** Builds a {@link RetryPolicy}; starts from the spec's defaults. */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration initialBackoff = Duration.ofMillis(500);
        private double multiplier = 2.0;
        private Duration maxBackoff = Duration.ofSeconds(30);
        private Duration totalTimeout = Duration.ofMinutes(10);
        private Duration perAttemptTimeout = Duration.ofMinutes(3);
        private Jitter jitter = Jitter.FULL;
        private final Map<Recovery, Action> actions = new EnumMap<>(Recovery.class);
        private Clock clock = Clock.systemUTC();
        // One shared, thread-safe generator: default policies compare equal and may serve many threads.
        private RandomGenerator random = ThreadLocalRandom.current();
        private boolean failFast;

        private Builder() {
            actions.put(Recovery.FIX_REQUEST, Action.FAIL);
            actions.put(Recovery.NEVER, Action.FAIL);
            actions.put(Recovery.INSPECT_LOGS, Action.FAIL);
            actions.put(Recovery.ENSURE_PRECONDITION, Action.FAIL);
            actions.put(Recovery.BACKOFF, Action.BACKOFF);
            actions.put(Recovery.VERIFY_THEN_BACKOFF, Action.VERIFY_THEN_BACKOFF);
            actions.put(Recovery.RENEW_SECRETS, Action.RENEW_THEN_RETRY);
        }

        private Builder(RetryPolicy p) {
            this.maxAttempts = p.maxAttempts;
            this.initialBackoff = p.initialBackoff;
            this.multiplier = p.multiplier;
            this.maxBackoff = p.maxBackoff;
            this.totalTimeout = p.totalTimeout;
            this.perAttemptTimeout = p.perAttemptTimeout;
            this.jitter = p.jitter;
            this.actions.putAll(p.actions);
            this.clock = p.clock;
            this.random = p.random;
            this.failFast = p.failFast;
        }

        /** The most calls for one request, the first included; at least 1. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = requireAttempts(maxAttempts);
            return this;
        }

        /** The delay cap before the first retry; not negative. */
        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = Arguments.requireNotNegative("initialBackoff", initialBackoff);
            return this;
        }

        /** The growth factor of the delay cap per retry; at least 1. */
        public Builder multiplier(double multiplier) {
            this.multiplier = requireMultiplier(multiplier);
            return this;
        }

        /** The largest delay between two attempts; not negative. */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = Arguments.requireNotNegative("maxBackoff", maxBackoff);
            return this;
        }

        /** The budget for all attempts and delays of one request; positive. */
        public Builder totalTimeout(Duration totalTimeout) {
            this.totalTimeout = Arguments.requirePositive("totalTimeout", totalTimeout);
            return this;
        }

        /** The gRPC deadline of each attempt; positive. */
        public Builder perAttemptTimeout(Duration perAttemptTimeout) {
            this.perAttemptTimeout = Arguments.requirePositive("perAttemptTimeout", perAttemptTimeout);
            return this;
        }

        /** How delays are randomized; {@link Jitter#FULL} by default. */
        public Builder jitter(Jitter jitter) {
            this.jitter = Objects.requireNonNull(jitter, "jitter");
            return this;
        }

        /**
         * Overrides what is done after errors of class {@code recovery}. {@link Recovery#NEVER} (UNIMPLEMENTED)
         * only accepts {@link Action#FAIL}: the spec says the caller MUST NOT retry.
         *
         * <pre>{@code
         * RetryPolicy.spec().toBuilder().onRecovery(Recovery.VERIFY_THEN_BACKOFF, RetryPolicy.Action.FAIL).build();
         * }</pre>
         */
        public Builder onRecovery(Recovery recovery, Action action) {
            actions.put(Objects.requireNonNull(recovery, "recovery"), requireAllowed(recovery, action));
            return this;
        }

        /** The clock deadlines are measured on (tests inject a fixed or stepping clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The source of jitter (tests inject a seeded or constant generator). */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * Whether a call that cannot reach the plugin fails at once. By default (false) it waits for the plugin
         * (gRPC's wait-for-ready) within the per-attempt and total timeouts, and neither the wait nor a connection
         * lost before the plugin answered spends an attempt: a restarting plugin costs the caller time, not a
         * failure. Answers from the plugin (ABORTED, UNAVAILABLE it sent, ...) follow the recovery table either way.
         *
         * <p>The trade-off: with {@code true}, an outage is reported within the back-off budget (seconds), so a
         * caller that can do something else (another plugin, a status report) learns at once; but calls made during
         * a restart fail, and whoever made them must retry.
         *
         * <pre>{@code
         * RetryPolicy.spec().toBuilder().failFast(true).build();
         * }</pre>
         */
        public Builder failFast(boolean failFast) {
            this.failFast = failFast;
            return this;
        }

        /** The policy. */
        public RetryPolicy build() {
            return new RetryPolicy(this);
        }
    }

    private static int requireAttempts(int maxAttempts) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts counts the first call and must be >= 1: " + maxAttempts);
        }
        return maxAttempts;
    }

    private static double requireMultiplier(double multiplier) {
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be a finite number >= 1: " + multiplier);
        }
        return multiplier;
    }

    private static Action requireAllowed(Recovery recovery, Action action) {
        Objects.requireNonNull(action, "action");
        if (recovery == Recovery.NEVER && action != Action.FAIL) {
            throw new IllegalArgumentException("the spec says UNIMPLEMENTED MUST NOT be retried");
        }
        return action;
    }
}

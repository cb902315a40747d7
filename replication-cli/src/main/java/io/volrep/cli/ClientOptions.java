package io.volrep.cli;

import io.volrep.api.SpecDialect;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options every typed call shares: where the plugin is, the secrets, the retry budget and verbosity.
 * A picocli mixin, so options such as {@code --dialect} are added in this one place.
 */
public final class ClientOptions {

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    @Mixin
    TargetOption target;

    @Mixin
    SecretOptions secrets;

    @Option(
            names = "--max-attempts",
            paramLabel = "N",
            description = "Most calls for the request, the first included (default: the spec policy's 5).")
    Integer maxAttempts;

    /**
     * A minute: enough for a plugin's slow answer with a few back-offs, or for a plugin that restarts, and what a
     * person at a terminal can wait for, watching what is awaited (the library's default, 10 minutes, is for
     * controllers that have nobody waiting).
     */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(1);

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "60s",
            description = "Budget of each call, all its attempts and back-offs and a wait for a plugin that is not up"
                    + " included: 30s, 2m or PT30S (default: ${DEFAULT-VALUE}, because that is enough for a slow answer"
                    + " with a few back-offs or a plugin's restart, and what a person at a terminal waits for; the"
                    + " library's 10m is for controllers).")
    Duration timeout = DEFAULT_TIMEOUT;

    /*
     * The CLI's default is equal jitter, not the library's full jitter: full jitter spreads out the retries of
     * many callers hitting one plugin, but a CLI run is a single caller with nothing to de-synchronize from, and
     * an operator reading -v output expects visibly growing back-off (with full jitter a later gap can be
     * shorter than an earlier one). Equal jitter keeps some randomness and makes every gap longer than the last.
     */
    @Option(
            names = "--jitter",
            paramLabel = "full|equal|none",
            defaultValue = "equal",
            converter = JitterConverter.class,
            description = "How back-off delays are randomized: equal (in [cap/2, cap): every gap longer than the "
                    + "last), full (in [0, cap], the library default, for many callers) or none (exactly the "
                    + "exponential cap). Default: ${DEFAULT-VALUE}.")
    RetryPolicy.Jitter jitter = RetryPolicy.Jitter.EQUAL;

    @Option(
            names = "--dialect",
            paramLabel = "REVISION",
            defaultValue = "current",
            converter = DialectConverter.class,
            description = "The replication spec revision the plugin speaks: current, upstream-2026, v0.1.3 or v0.1.0"
                    + " (default: ${DEFAULT-VALUE}). A wrong revision can address the wrong source;"
                    + " see docs/compatibility.md.")
    SpecDialect dialect;

    @Option(
            names = "--fail-fast",
            description = "Fail at once when the plugin cannot be reached, instead of waiting for it (within "
                    + "--timeout) while it restarts; connection failures then count as attempts.")
    boolean failFast;

    @Option(
            names = {"-v", "--verbose"},
            description = "Print each call on stderr as it is attempted: its code and the back-off chosen (secrets"
                    + " never shown).")
    boolean verbose;

    /** The retry policy the options ask for: the spec's, with the jitter and the attempt and time budget applied. */
    RetryPolicy retryPolicy() {
        RetryPolicy.Builder b = RetryPolicy.spec().toBuilder().jitter(jitter).failFast(failFast);
        if (maxAttempts != null) {
            b.maxAttempts(maxAttempts);
        }
        Duration total = timeout != null ? timeout : DEFAULT_TIMEOUT;
        b.totalTimeout(total);
        if (total.compareTo(RetryPolicy.spec().perAttemptTimeout()) < 0) {
            b.perAttemptTimeout(total);
        }
        return b.build();
    }

    /**
     * A client for these options; {@code progress} sees every attempt (a real wait longer than a second shows on
     * {@code err}); with {@code -v}, each attempt is printed to {@code err} as well.
     */
    ReplicationClient client(PrintWriter err, Progress progress) {
        Map<String, String> secretValues;
        try {
            secretValues = secrets.secrets();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        ReplicationClient.Builder b = ReplicationClient.builder()
                .target(target.endpoint)
                .retry(retryPolicy())
                .dialect(dialect)
                .secrets(SecretsProvider.of(secretValues))
                .listener(
                        verbose
                                ? event -> {
                                    progress.onAttempt(event);
                                    synchronized (err) {
                                        err.println(event.describe());
                                        err.flush();
                                    }
                                }
                                : progress);
        return b.build();
    }

    /** Shows the waits for {@code what} on {@code err} that are real and last (see {@link Progress}). */
    Progress progress(PrintWriter err, String what) {
        return Progress.start(err, what, target.endpoint, retryPolicy().totalTimeout());
    }

    /** {@code full}, {@code equal}, {@code none}, in any case. */
    static final class JitterConverter extends EnumConverter<RetryPolicy.Jitter> {
        JitterConverter() {
            super(RetryPolicy.Jitter.class, "jitter", "full, equal or none");
        }
    }

    /** {@code current}, {@code upstream-2026}, {@code v0.1.3}, {@code v0.1.0} (or the enum names). */
    static final class DialectConverter implements CommandLine.ITypeConverter<SpecDialect> {
        @Override
        public SpecDialect convert(String value) {
            try {
                return SpecDialect.fromName(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}

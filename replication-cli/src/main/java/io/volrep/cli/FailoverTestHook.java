package io.volrep.cli;

import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.SafeText;
import io.volrep.client.reconcile.FailoverProgress;
import io.volrep.client.reconcile.FailoverStep;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * A test hook of {@code volrep failover}, never active by default: it stops a failover deterministically at a step
 * boundary, so that a test can kill the process there (SIGKILL) or disturb a site, and then resume it or run the same
 * failover again (issue 44). Set the environment variable {@value #VARIABLE} to a step: {@code CHECKING_B} (nothing
 * sent yet), {@code DEMOTING_ON_A} (site B checked, site A not demoted yet), {@code PROMOTING_ON_B} (site A's demote
 * answered OK, site B's promote not sent), {@code VERIFYING_ON_B} (site B's promote answered OK, not verified) or
 * {@code PRIMARY_ON_B} (verified, the report not printed). Each source that enters that step stops there, before the
 * step's call is sent, and stderr gets one line:
 *
 * <pre>
 * volrep: test hook: volume vol-0 paused at PROMOTING_ON_B (VOLREP_TEST_FAILOVER_PAUSE); a line on stdin resumes, end of input halts
 * </pre>
 *
 * <p>A line on stdin resumes every paused source (none pauses after it); the end of stdin halts the process at once,
 * as a SIGKILL would (exit 137, no clean-up), so that a test that dies leaves no process behind. The Ceph integration
 * tests ({@code it-ceph}'s {@code CephInterruptedFailoverIT}) use it.
 */
final class FailoverTestHook implements Consumer<FailoverProgress> {
    static final String VARIABLE = "VOLREP_TEST_FAILOVER_PAUSE";
    static final Set<FailoverStep> STEPS = Set.of(
            FailoverStep.CHECKING_B,
            FailoverStep.DEMOTING_ON_A,
            FailoverStep.PROMOTING_ON_B,
            FailoverStep.VERIFYING_ON_B,
            FailoverStep.PRIMARY_ON_B);

    private final Consumer<FailoverProgress> listener;
    private final FailoverStep step;
    private final PrintWriter err;
    private final InputStream in;
    private final Runnable halt;
    private final Set<ReplicationSource> paused = ConcurrentHashMap.newKeySet();
    private final CountDownLatch resume = new CountDownLatch(1);
    private Thread reader;

    FailoverTestHook(
            Consumer<FailoverProgress> listener, FailoverStep step, PrintWriter err, InputStream in, Runnable halt) {
        this.listener = listener;
        this.step = step;
        this.err = err;
        this.in = in;
        this.halt = halt;
    }

    /**
     * {@code listener} as it is when {@code value} (the variable's) is null or empty; else wrapped by the hook, which
     * reads {@code in} and halts the JVM at its end. An unknown step is an {@link IllegalArgumentException}.
     */
    static Consumer<FailoverProgress> wrap(
            Consumer<FailoverProgress> listener, String value, PrintWriter err, InputStream in) {
        if (value == null || value.isBlank()) {
            return listener;
        }
        FailoverStep step = STEPS.stream()
                .filter(s -> s.name().equals(value.trim().toUpperCase(Locale.ROOT)))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(VARIABLE + " (a test hook) names no step boundary: \""
                        + SafeText.escape(value) + "\"; use one of "
                        + Arrays.stream(FailoverStep.values())
                                .filter(STEPS::contains)
                                .map(Enum::name)
                                .collect(Collectors.joining(", "))));
        return new FailoverTestHook(
                listener, step, err, in, () -> Runtime.getRuntime().halt(137));
    }

    @Override
    public void accept(FailoverProgress p) {
        listener.accept(p);
        if (p.step() != step || !paused.add(p.source())) {
            return;
        }
        err.println("volrep: test hook: " + SafeText.escape(p.source().toString()) + " paused at " + step + " ("
                + VARIABLE + "); a line on stdin resumes, end of input halts");
        err.flush();
        startReader();
        try {
            resume.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void startReader() {
        if (reader != null) {
            return;
        }
        reader = new Thread(
                () -> {
                    try {
                        String line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
                        if (line == null) {
                            halt.run();
                        }
                    } catch (IOException e) {
                        halt.run();
                    }
                    resume.countDown();
                },
                "volrep-failover-test-hook");
        reader.setDaemon(true);
        reader.start();
    }
}

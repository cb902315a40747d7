package io.volrep.cli;

import io.volrep.api.SafeText;
import io.volrep.api.StatusCode;
import io.volrep.client.AttemptEvent;
import io.volrep.client.AttemptListener;
import io.volrep.client.ResyncCall;
import io.volrep.client.ResyncStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a call is waiting for, on stderr (never stdout, which stays for results), once it has waited
 * {@link #QUIET_PERIOD}: what is awaited, the time elapsed, the last answer and the next try or poll. On a
 * terminal it is one live line rewritten every second; otherwise (a log, a pipe, a test) plain lines, one per
 * new answer and one per {@link #PLAIN_REPEAT} of silence.
 *
 * <pre>
 * waiting for EnableVolumeReplication volume pvc-1 at unix:///csi/csi-addons.sock: 3 s elapsed, last answer
 *   14 UNAVAILABLE (attempt 3; no such socket file /csi/csi-addons.sock), next try in 1.6 s
 * </pre>
 *
 * Events arrive on client threads ({@link AttemptListener} must not block); everything is printed, and the
 * endpoint probed, on the one display thread.
 */
final class Progress implements AttemptListener, ResyncCall.PollListener, AutoCloseable {
    static final Duration QUIET_PERIOD = Duration.ofSeconds(1);
    static final Duration PLAIN_REPEAT = Duration.ofSeconds(10);
    private static final String NO_ANSWER = "none yet";

    private final PrintWriter err;
    private final boolean liveLine;
    private final String what;
    private final String endpoint;
    private final long startNanos;
    private final ScheduledExecutorService display;

    // written by client threads, read on the display thread
    private volatile String lastAnswer = NO_ANSWER;
    private volatile String next = "";
    private volatile long nextAtNanos;
    private volatile boolean unavailable;
    private volatile long changedNanos;

    // display thread only
    private long printedNanos = Long.MIN_VALUE;
    private long printedChange = -1;
    private String reason;
    private boolean lineOpen;

    private Progress(PrintWriter err, boolean liveLine, String what, String endpoint) {
        this.err = err;
        this.liveLine = liveLine;
        this.what = what;
        this.endpoint = endpoint;
        this.startNanos = System.nanoTime();
        this.changedNanos = startNanos;
        this.display = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "volrep-progress");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * True when the CLI runs as a process ({@link VolrepCommand#main}) attached to a terminal: then stderr gets
     * a live line. Embedded runs and tests, whose stderr is whatever writer they set, get plain lines.
     */
    static volatile boolean liveLineOnTerminal;

    /** Starts showing the wait for {@code what} at {@code endpoint} on {@code err}. */
    static Progress start(PrintWriter err, String what, String endpoint) {
        Progress p = new Progress(err, liveLineOnTerminal, what, endpoint);
        p.display.scheduleAtFixedRate(p::render, QUIET_PERIOD.toMillis(), 1000, TimeUnit.MILLISECONDS);
        return p;
    }

    @Override
    public void onAttempt(AttemptEvent event) {
        if (event.code() == StatusCode.OK) {
            return;     // a poll's answer comes through onPoll, a call's result through stdout
        }
        unavailable = event.code() == StatusCode.UNAVAILABLE;
        lastAnswer = event.code().display() + " (attempt " + event.attempt() + ")";
        changed(event.retryDelay(), "next try in ");
    }

    @Override
    public void onPoll(int poll, ResyncStatus status, Optional<Duration> nextPoll) {
        unavailable = false;
        lastAnswer = "ready=" + status.ready() + " (poll " + poll + ")";
        changed(nextPoll, "next poll in ");
    }

    private void changed(Optional<Duration> delay, String label) {
        long now = System.nanoTime();
        next = delay.isPresent() ? label : "";
        nextAtNanos = now + delay.map(Duration::toNanos).orElse(0L);
        changedNanos = now;
        try {
            display.execute(this::render);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the command is done
        }
    }

    private void render() {
        long now = System.nanoTime();
        long elapsed = now - startNanos;
        if (elapsed < QUIET_PERIOD.toNanos()) {
            return;
        }
        long change = changedNanos;
        if (!liveLine && change == printedChange && now - printedNanos < PLAIN_REPEAT.toNanos()) {
            return;
        }
        String answer = lastAnswer;
        if (change == startNanos) {
            // No answer yet: the client is waiting for the plugin (wait-for-ready). Say why, looking again each
            // time, since a restarting plugin's socket comes and goes.
            String why = Endpoint.whyUnreachable(endpoint).orElse("");
            answer = answer + (why.isEmpty() ? "" : " (waiting for the plugin: " + why + ")");
        }
        if (unavailable && reason == null) {
            reason = Endpoint.whyUnreachable(endpoint).orElse("");
        }
        if (unavailable && !reason.isEmpty()) {
            answer = answer.substring(0, answer.length() - 1) + "; " + reason + ")";
        }
        String line = "waiting for " + what + " at " + endpoint + ": " + seconds(elapsed) + " elapsed, last answer "
                + answer + (next.isEmpty() ? "" : ", " + next + seconds(Math.max(0, nextAtNanos - now)));
        if (liveLine) {
            err.print("\r" + line + "\u001b[K");
            lineOpen = true;
        } else {
            err.println(line);
        }
        err.flush();
        printedNanos = now;
        printedChange = change;
    }

    static String seconds(long nanos) {
        double s = nanos / 1e9;
        return s < 10 ? String.format(Locale.ROOT, "%.1f s", s) : Math.round(s) + " s";
    }

    /** Stops the display; a live line is ended so that what follows starts on its own line. */
    @Override
    public void close() {
        display.shutdownNow();
        try {
            display.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (lineOpen) {
            lineOpen = false;
            err.println();
            err.flush();
        }
    }

    /** {@code what} with untrusted parts (ids) made safe to print. */
    static String describe(String rpc, Object source) {
        return rpc + " " + SafeText.escape(String.valueOf(source));
    }
}

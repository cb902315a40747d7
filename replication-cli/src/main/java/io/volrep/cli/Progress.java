package io.volrep.cli;

import io.volrep.api.StatusCode;
import io.volrep.api.internal.SafeText;
import io.volrep.client.AttemptEvent;
import io.volrep.client.AttemptListener;
import io.volrep.client.ReplicationClient;
import io.volrep.client.ResyncCall;
import io.volrep.client.ResyncStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a command is waiting for, on stderr (never stdout, which stays for results), when the wait is real and has
 * lasted {@link #QUIET_PERIOD}: a back-off before the next try, a poll of {@code --await-ready}, or a plugin that
 * does not accept connections (looked at, not guessed). A plugin that is there and answers is no wait: a slow answer
 * shows only after {@link #SLOW_ANSWER}, and an answer that ends a call (a refusal a reconciliation goes on from
 * included) shows nothing. On a terminal it is one live line rewritten every second; otherwise (a log, a pipe, a
 * test) plain lines, one per change and one per {@link #PLAIN_REPEAT} of sameness.
 *
 * <pre>
 * waiting for the plugin at unix:///csi/csi-addons.sock to accept connections: no such socket file
 *   /csi/csi-addons.sock (1.0 s elapsed; each call gives up after 60 s, see --timeout)
 * waiting for volrep promote volume pvc-1 at unix:///csi/csi-addons.sock: 1.5 s elapsed, last answer 10 ABORTED
 *   (attempt 2), next try in 0.9 s
 * </pre>
 *
 * Events arrive on client threads ({@link AttemptListener} must not block); everything is printed, and the
 * endpoint looked at, on the one display thread.
 */
final class Progress implements AttemptListener, ResyncCall.PollListener, AutoCloseable {
    static final Duration QUIET_PERIOD = Duration.ofSeconds(1);
    static final Duration SLOW_ANSWER = Duration.ofSeconds(10);
    static final Duration PLAIN_REPEAT = Duration.ofSeconds(10);
    /** The commands whose waits this class shows. */
    private static final Set<String> SHOWS_PROGRESS =
            Set.of("enable", "disable", "promote", "demote", "resync", "info", "destination", "heal", "reconcile");

    private final PrintWriter err;
    private final boolean liveLine;
    private final String what;
    private final String endpoint;
    private final Duration callTimeout;
    private final long startNanos;
    private final ScheduledExecutorService display;

    /**
     * What the command waits for after the last answer (none: {@code lastAnswer} null); {@code transport} when that
     * answer was a transport code, which says the plugin may not be reached. Written by client threads, read on the
     * display thread.
     */
    private record Pending(String lastAnswer, boolean transport, String label, long nextAtNanos, long answeredNanos) {
        static Pending none() {
            return new Pending(null, false, "", 0, System.nanoTime());
        }
    }

    private volatile Pending pending;

    // display thread only
    private long printedNanos;
    private String printedKey = "";
    private long lookedNanos;
    private Optional<String> unreachable;
    private boolean lineOpen;

    private Progress(PrintWriter err, boolean liveLine, String what, String endpoint, Duration callTimeout) {
        this.err = err;
        this.liveLine = liveLine;
        this.what = what;
        this.endpoint = endpoint;
        this.callTimeout = callTimeout;
        this.startNanos = System.nanoTime();
        this.pending = Pending.none();
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

    /** Starts showing the waits for {@code what} at {@code endpoint}, whose calls each give up after {@code callTimeout}. */
    static Progress start(PrintWriter err, String what, String endpoint, Duration callTimeout) {
        Progress p = new Progress(err, liveLineOnTerminal, what, endpoint, callTimeout);
        p.display.scheduleAtFixedRate(p::render, QUIET_PERIOD.toMillis(), 1000, TimeUnit.MILLISECONDS);
        return p;
    }

    @Override
    public void onAttempt(AttemptEvent event) {
        if (event.code() == StatusCode.OK || !event.willRetry()) {
            // An answer that ends its call: the result goes to stdout, a refusal to the command (a reconciliation
            // goes on from it). Either way nothing is awaited any more.
            changed(Pending.none());
            return;
        }
        String answer = event.code().display() + " (attempt " + event.attempt() + ")";
        boolean transport = event.code() == StatusCode.UNAVAILABLE || event.code() == StatusCode.DEADLINE_EXCEEDED;
        changed(new Pending(answer, transport, "next try in ", deadline(event.retryDelay()), System.nanoTime()));
    }

    @Override
    public void onPoll(int poll, ResyncStatus status, Optional<Duration> nextPoll) {
        String answer = "ready=" + status.ready() + " (poll " + poll + ")";
        changed(
                nextPoll.isPresent()
                        ? new Pending(answer, false, "next poll in ", deadline(nextPoll), System.nanoTime())
                        : Pending.none());
    }

    private static long deadline(Optional<Duration> delay) {
        return System.nanoTime() + delay.map(Duration::toNanos).orElse(0L);
    }

    private void changed(Pending now) {
        pending = now;
        try {
            display.execute(this::render);
        } catch (RejectedExecutionException closed) {
            // the command is done
        }
    }

    private void render() {
        long now = System.nanoTime();
        if (now - startNanos < QUIET_PERIOD.toNanos()) {
            return;
        }
        Pending p = pending;
        String line;
        String key;
        if (p.lastAnswer() != null && now < p.nextAtNanos()) {
            // A back-off or the pause between polls: a wait by definition.
            line = "waiting for " + what + " at " + endpoint + ": " + seconds(now - startNanos)
                    + " elapsed, last answer " + p.lastAnswer() + unreachableAfter(p, now) + ", " + p.label()
                    + seconds(p.nextAtNanos() - now);
            key = "answer " + p.answeredNanos();
        } else if (now - p.answeredNanos() >= QUIET_PERIOD.toNanos()
                && look(now).isPresent()) {
            // A call is out and nothing has come back: a plugin that does not accept connections is a wait.
            line = "waiting for the plugin at " + endpoint + " to accept connections: " + unreachable.get() + " ("
                    + seconds(now - startNanos) + " elapsed; each call gives up after " + duration(callTimeout)
                    + ", see --timeout)";
            key = "unreachable " + unreachable.get();
        } else if (now - p.answeredNanos() >= SLOW_ANSWER.toNanos()) {
            // The plugin is there (or cannot be looked at) and has been silent for a while.
            line = "waiting for " + what + " at " + endpoint + ": " + seconds(now - startNanos) + " elapsed, no answer"
                    + " for " + seconds(now - p.answeredNanos());
            key = "silent " + p.answeredNanos();
        } else {
            return;
        }
        if (!liveLine && key.equals(printedKey) && now - printedNanos < PLAIN_REPEAT.toNanos()) {
            return;
        }
        if (liveLine) {
            err.print("\r" + line + "\u001b[K");
            lineOpen = true;
        } else {
            err.println(line);
        }
        err.flush();
        printedNanos = now;
        printedKey = key;
    }

    /** After a transport code (the plugin may not have been reached): why, when looking finds a reason. */
    private String unreachableAfter(Pending p, long now) {
        return p.transport() ? look(now).map(why -> " (" + why + ")").orElse("") : "";
    }

    /** Why the endpoint cannot be reached, looked at again at most once a second (a restarting plugin comes back). */
    private Optional<String> look(long now) {
        if (unreachable == null || now - lookedNanos >= QUIET_PERIOD.toNanos()) {
            unreachable = Endpoint.whyUnreachable(endpoint);
            lookedNanos = now;
        }
        return unreachable;
    }

    /** {@code 3 s}, {@code 60 s}, {@code 10 min}; a fraction as {@link #seconds}. */
    static String duration(Duration d) {
        if (d.toNanos() % 1_000_000_000L != 0) {
            return seconds(d.toNanos());
        }
        return d.toSeconds() > 120 && d.toSeconds() % 60 == 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
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

    /**
     * What {@code -v} prints: each attempt as {@link AttemptEvent#describe()} reads it (its code, the back-off chosen;
     * no secret), one line on {@code err} after {@code prefix}.
     */
    static AttemptListener printingAttempts(PrintWriter err, String prefix) {
        return event -> {
            synchronized (err) {
                err.println(prefix + event.describe());
                err.flush();
            }
        };
    }

    /** {@code what} with untrusted parts (ids) made safe to print. */
    static String describe(String rpc, Object source) {
        return rpc + " " + SafeText.escape(String.valueOf(source));
    }

    /**
     * The client library's own warnings about a wait for a connection ({@code Still connecting to ...}) repeat what
     * the progress line says; a command that shows one keeps them out of the way, unless {@code -v} asks for all.
     * Set before any logger exists.
     */
    static void quietLibraryConnectionWarnings(String... args) {
        String property = "org.slf4j.simpleLogger.log." + ReplicationClient.class.getPackageName() + ".ConnectionWatch";
        if (System.getProperty(property) != null || args.length == 0 || !SHOWS_PROGRESS.contains(args[0])) {
            return;
        }
        for (String arg : args) {
            if (arg.equals("-v") || arg.equals("--verbose")) {
                return;
            }
        }
        System.setProperty(property, "error");
    }
}

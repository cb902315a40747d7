package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.volrep.api.Secrets;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnknownErrorException;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.exec.internal.ProcessRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Ceph cluster as the {@code rbd} command line reaches it. Every command runs under the exec bridge's
 * {@link ProcessRunner} (concurrent draining, bounded capture, the process killed at its deadline) within the RPC's
 * {@link CallBudget}, and carries Ceph's own client timeouts cut to that budget ({@code client_mount_timeout},
 * {@code rados_mon_op_timeout}, {@code rados_osd_op_timeout}): a client of a site that is gone otherwise waits 300 s
 * to mount, and a command against a mon whose placement groups are unavailable can hang for minutes.
 *
 * <pre>{@code
 * RbdCli site = new RbdCli("site-a", "rbd", List.of("-c", "/etc/ceph/site-a.conf", "--id", "admin"), runner, 8);
 * JsonElement info = site.json(budget, "info", "rbd/vol-0");            // rbd ... info rbd/vol-0 --format json
 * }</pre>
 */
final class RbdCli {
    private static final Logger LOG = LoggerFactory.getLogger(RbdCli.class);
    /** Ceph's client timeouts are whole seconds; a command needs at least this much of the budget to start. */
    static final Duration MIN_COMMAND_TIME = Duration.ofMillis(1500);
    /** The most a command may print on stdout (a mirror status with many snapshots is a few KiB). */
    static final int MAX_STDOUT_BYTES = 4 * 1024 * 1024;

    static final int STDERR_BYTES = 16 * 1024;
    /** The prefix of a Ceph log line: {@code 2026-11-26T04:11:08.723+0000 7f5e8a4866c0 -1 }. */
    private static final Pattern LOG_PREFIX = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT[0-9:.+]+ [0-9a-f]+ +-?\\d+ ");

    private static final Pattern LOG_LINE_START =
            Pattern.compile("(?=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:[0-9.]+\\+\\d{4} [0-9a-f]+ )");
    /** Timestamps in {@code rbd snap ls} are the C library's local time: read them in UTC. */
    private static final Map<String, String> ENVIRONMENT = Map.of("TZ", "UTC", "LC_ALL", "C");

    private final String site;
    private final String executable;
    private final List<String> connection;
    private final ProcessRunner runner;
    private final Semaphore slots;
    private final int maxConcurrent;
    /** Values masked in whatever rbd prints before it reaches a message or a log (the peer's key). */
    private final Secrets masked;

    /**
     * @param site how messages name this cluster, e.g. {@code "site-a"} or {@code "Ceph (/etc/ceph/ceph.conf)"}
     * @param executable the rbd command
     * @param connection the arguments that select the cluster and the user ({@code -c CONF --id NAME}, or
     *                   {@code -m MON --id NAME --keyfile F})
     * @param maxConcurrent the most rbd processes this cluster runs at once
     */
    RbdCli(String site, String executable, List<String> connection, ProcessRunner runner, int maxConcurrent) {
        this(site, executable, connection, runner, maxConcurrent, Secrets.empty());
    }

    private RbdCli(
            String site,
            String executable,
            List<String> connection,
            ProcessRunner runner,
            int maxConcurrent,
            Secrets masked) {
        this.masked = masked;
        this.site = site;
        this.executable = executable;
        this.connection = List.copyOf(connection);
        this.runner = runner;
        this.maxConcurrent = maxConcurrent;
        this.slots = new Semaphore(maxConcurrent, true);
    }

    /** How messages name this cluster. */
    String site() {
        return site;
    }

    /**
     * Another cluster reached with other connection arguments (the peer site, through its stored credentials), with
     * the same rbd command, runner and slots; {@code masked} values never leave it in a message or a log.
     */
    RbdCli withConnection(String otherSite, List<String> otherConnection, Secrets masked) {
        return new RbdCli(otherSite, executable, otherConnection, runner, maxConcurrent, masked);
    }

    /** Runs {@code rbd ARGS --format json} and parses its output. */
    JsonElement json(CallBudget budget, String... args) {
        List<String> withFormat = new ArrayList<>(List.of(args));
        withFormat.add("--format");
        withFormat.add("json");
        String out = run(budget, withFormat);
        try {
            return JsonParser.parseString(out.isBlank() ? "null" : out);
        } catch (JsonParseException e) {
            throw new UnknownErrorException(site + ": rbd " + describe(withFormat) + " printed malformed JSON: "
                    + SafeText.escape(shorten(masked.scrub(out), 200)));
        }
    }

    /** Runs {@code rbd ARGS} and returns its stdout; a non-zero exit throws {@link RbdException}. */
    String run(CallBudget budget, String... args) {
        return run(budget, List.of(args));
    }

    /**
     * Runs {@code rbd ARGS}.
     *
     * @throws RbdException when rbd exits non-zero (its exit code is the errno, e.g. 16 EBUSY)
     * @throws UnavailableException when the cluster does not answer within the budget (the process is killed) or
     *                              no rbd slot frees in time
     * @throws UnknownErrorException when rbd cannot be started
     */
    String run(CallBudget budget, List<String> args) {
        budget.require(MIN_COMMAND_TIME, site);
        Duration left = budget.remaining();
        // Ceph's own timeouts end the command a second before we would kill it, so that its error says why.
        long cephSeconds = Math.max(1, left.toSeconds() - 1);
        List<String> argv = new ArrayList<>();
        argv.add(executable);
        argv.addAll(connection);
        for (String option : List.of("--client_mount_timeout", "--rados_mon_op_timeout", "--rados_osd_op_timeout")) {
            argv.add(option);
            argv.add(Long.toString(cephSeconds));
        }
        argv.addAll(args);
        String command = describe(args);
        ProcessRunner.Result result;
        long start = System.nanoTime();
        try {
            if (!slots.tryAcquire(left.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new UnavailableException(site + ": all " + maxConcurrent + " rbd slots stayed busy for "
                        + CallBudget.seconds(left) + "; retry");
            }
            try {
                result = runner.run(argv, ENVIRONMENT, null, new byte[0], budget.remaining());
            } finally {
                slots.release();
            }
        } catch (IOException e) {
            throw new UnknownErrorException(
                    site + ": cannot run " + executable + ": " + SafeText.escape(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(site + ": interrupted running rbd " + command + " (shutting down)");
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        String stderr = masked.scrub(new String(result.stderr(), StandardCharsets.UTF_8));
        switch (result.ending()) {
            case TIMED_OUT -> {
                LOG.warn("{}: rbd {} did not finish within {}; killed", site, command, CallBudget.seconds(left));
                throw new UnavailableException(site + ": Ceph did not answer rbd " + command + " within "
                        + CallBudget.seconds(left) + " (the cluster is down or unreachable); retry later");
            }
            case OUTPUT_TOO_LARGE ->
                throw new UnknownErrorException(
                        site + ": rbd " + command + " printed more than " + MAX_STDOUT_BYTES + " bytes");
            default -> {}
        }
        if (result.exitCode() != 0) {
            RbdException failure = new RbdException(site, command, result.exitCode(), errorText(stderr));
            LOG.debug("{}: rbd {} -> exit {} in {} ms: {}", site, command, result.exitCode(), millis, failure.detail());
            throw failure;
        }
        LOG.debug("{}: rbd {} -> 0 in {} ms", site, command, millis);
        return new String(result.stdout(), StandardCharsets.UTF_8);
    }

    /** The arguments as a log and message would show them (they never carry secrets: keys go in files). */
    private static String describe(List<String> args) {
        return SafeText.escape(String.join(" ", args));
    }

    /**
     * What rbd said on stderr, fit for a message: Ceph's log prefixes removed, the auth noise of a client without a
     * keyring file left out, one line per message, control characters escaped, at most 600 characters.
     */
    static String errorText(String stderr) {
        List<String> lines = new ArrayList<>();
        // rbd's threads can write a log line right after an unterminated one: split before every Ceph timestamp
        for (String line : LOG_LINE_START.matcher(stderr).replaceAll("\n").split("\n")) {
            String text = LOG_PREFIX.matcher(line.strip()).replaceFirst("").strip();
            if (text.isEmpty()
                    || text.startsWith("auth: unable to find a keyring")
                    || text.startsWith("AuthRegistry(")
                    || lines.contains(text)) {
                continue;
            }
            lines.add(text);
        }
        return shorten(SafeText.escape(String.join("; ", lines)), 600);
    }

    static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }
}

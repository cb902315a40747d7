package io.volrep.spi.exec.internal;

import io.volrep.api.internal.SafeText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one driver process: secrets to stdin, stdout and stderr drained concurrently (so a chatty driver never
 * blocks on a full pipe while we wait for it), a deadline after which the whole process tree is killed, and
 * bounded capture of both streams. The threads that feed and read the pipes belong to the call: they are
 * started for it and end with it.
 *
 * <p>With a launcher (the exec bridge's {@code PidNamespaces}) the driver is the init process of its own PID
 * namespace: when it exits or is killed, the kernel kills every process left in the namespace, daemons included,
 * and the pipes they held close, so nothing outlives the call. Without one (containment off, or unavailable) the
 * tree is remembered while the driver runs (polled every {@code TREE_POLL}), because a child whose parent dies is
 * re-parented and can no longer be found through the parent: on a timeout every process of the tree we saw is
 * killed, not only those still attached to the driver; a process that left the tree between two polls escapes.
 *
 * <p>Internal: shared by the exec bridge ({@code io.volrep.spi.exec.ExecDriver}) and volrep's own drivers that run
 * a storage CLI (replication-ceph's {@code rbd}); exported to those modules only, not an API.
 *
 * <pre>{@code
 * try (ProcessRunner runner = new ProcessRunner(1 << 20, 8192, List.of())) {
 *     ProcessRunner.Result r = runner.run(List.of("rbd", "ls"), Map.of(), null, new byte[0], Duration.ofSeconds(10));
 * }
 * }</pre>
 */
public final class ProcessRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessRunner.class);
    private static final Duration TREE_POLL = Duration.ofMillis(100);
    private static final Duration DRAIN_AFTER_KILL = Duration.ofSeconds(2);
    /**
     * How long after the driver exits its output streams may stay open before we stop reading them, when a child
     * left behind may hold them (not in a PID namespace, where the readers are awaited to the end).
     */
    static final Duration EXIT_GRACE = Duration.ofMillis(500);

    /** How a run ended. */
    public enum Ending {
        EXITED,
        TIMED_OUT,
        OUTPUT_TOO_LARGE
    }

    /**
     * What a run produced.
     *
     * @param ending how it ended
     * @param exitCode the exit code when {@link Ending#EXITED}, else -1
     * @param stdout everything printed on stdout (at most the limit)
     * @param stderr the head of stderr (at most the stderr capture limit)
     * @param stderrBytes how many bytes stderr carried in total
     * @param heldOpen true when the driver exited but a leftover child still held its output open
     */
    @SuppressWarnings("ArrayRecordComponent") // never compared: the bytes are read once, by the exec driver
    public record Result(
            Ending ending, int exitCode, byte[] stdout, byte[] stderr, long stderrBytes, boolean heldOpen) {}

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final int maxStdoutBytes;
    private final int stderrCaptureBytes;
    private final List<String> launcher;
    private final Map<Process, Set<ProcessHandle>> running = new ConcurrentHashMap<>();
    private final AtomicLong killedOnTimeout = new AtomicLong();
    private final Duration exitGrace;

    /**
     * @param launcher the command that runs the driver's command line in its own PID namespace
     *                 ({@code PidNamespaces.probe()} of the exec bridge), or empty to run it directly
     */
    public ProcessRunner(int maxStdoutBytes, int stderrCaptureBytes, List<String> launcher) {
        this(maxStdoutBytes, stderrCaptureBytes, launcher, EXIT_GRACE);
    }

    /** With another {@link #EXIT_GRACE}: a test's stand-in for a reader that gets a CPU only after the driver exits. */
    ProcessRunner(int maxStdoutBytes, int stderrCaptureBytes, List<String> launcher, Duration exitGrace) {
        this.maxStdoutBytes = maxStdoutBytes;
        this.stderrCaptureBytes = stderrCaptureBytes;
        this.launcher = List.copyOf(launcher);
        this.exitGrace = exitGrace;
    }

    /** True when each driver runs in its own PID namespace. */
    public boolean contained() {
        return !launcher.isEmpty();
    }

    /**
     * Runs {@code command} to its end or its deadline, with exactly {@code environment} (nothing inherited).
     *
     * @throws IOException when the process cannot be started
     */
    public Result run(
            List<String> command,
            Map<String, String> environment,
            Path workingDirectory,
            byte[] stdin,
            Duration timeout)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(launcher);
        argv.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(argv);
        // The whole environment of the driver: nothing of the server's is inherited (see ExecDriver).
        builder.environment().clear();
        builder.environment().putAll(environment);
        if (workingDirectory != null) {
            builder.directory(workingDirectory.toFile());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Process process = builder.start();
        Set<ProcessHandle> tree = ConcurrentHashMap.newKeySet();
        running.put(process, tree);
        try {
            Capture out = new Capture(maxStdoutBytes);
            Capture err = new Capture(stderrCaptureBytes);
            callThread(() -> {
                writeStdin(process, stdin);
                return null;
            });
            Future<?> outDone = callThread(() -> out.drain(process.getInputStream(), () -> killTree(process, tree)));
            Future<?> errDone = callThread(() -> err.drain(process.getErrorStream(), null));

            boolean exited = false;
            while (!exited) {
                if (!contained()) {
                    remember(process, tree); // a namespace needs no tracking: its init takes everything along
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                exited = process.waitFor(Math.min(left, TREE_POLL.toNanos()), TimeUnit.NANOSECONDS);
            }
            if (!exited) {
                killTree(process, tree);
                killedOnTimeout.incrementAndGet();
                awaitQuietly(outDone, errDone);
                return result(Ending.TIMED_OUT, -1, out, err, false);
            }
            // The driver has exited, so everything it printed is in the pipes. A background child it left
            // behind (legitimate: work that goes on after the answer) may still hold them open: after a short
            // grace, take what was read and leave the child (and the reader blocked on it) alone. In a PID
            // namespace no child outlives the driver, so the end of the pipes is certain: the readers are awaited
            // until the deadline, since on a loaded machine a reader's thread may get a CPU only seconds later.
            boolean outHeldOpen = !awaitEnd(outDone, deadline); // both readers are awaited, each to its end
            boolean errHeldOpen = !awaitEnd(errDone, deadline);
            boolean heldOpen = outHeldOpen || errHeldOpen;
            if (heldOpen) {
                LOG.debug(
                        "{}: a child process still holds the driver's output open; using what the driver printed",
                        command.get(0));
            }
            if (out.overflowed()) {
                return result(Ending.OUTPUT_TOO_LARGE, -1, out, err, heldOpen);
            }
            if (contained() && cannotExecute(process.exitValue(), out, err)) {
                // The launcher started, the driver did not (missing, not executable, bad interpreter).
                String why = SafeText.escape(
                        new String(err.bytes(), StandardCharsets.UTF_8).strip().substring(LAUNCH_FAILURE.length()));
                throw new IOException(why.length() <= 200 ? why : why.substring(0, 200) + "...");
            }
            return result(Ending.EXITED, process.exitValue(), out, err, heldOpen);
        } catch (InterruptedException e) {
            killTree(process, tree);
            throw e;
        } finally {
            running.remove(process);
        }
    }

    /**
     * How unshare(1) starts its report of a command it could not execute (exit code 126 or 127), e.g.
     * {@code unshare: failed to execute /x: No such file or directory}; the rest may be translated.
     */
    private static final String LAUNCH_FAILURE = "unshare: ";

    private static boolean cannotExecute(int exitCode, Capture out, Capture err) {
        return (exitCode == 126 || exitCode == 127)
                && out.total() == 0
                && new String(err.bytes(), StandardCharsets.UTF_8).startsWith(LAUNCH_FAILURE);
    }

    /** Runs {@code task} on a new thread of this call (not a pool's: nothing of the call stays behind). */
    private static <T> Future<T> callThread(Callable<T> task) {
        FutureTask<T> future = new FutureTask<>(task);
        Thread t = new Thread(future, "volrep-exec-io-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        t.start();
        return future;
    }

    /** Kills every process still running (the server is going away). */
    @Override
    public void close() {
        running.forEach(ProcessRunner::killTree);
    }

    /** How many driver processes are running now. */
    public int running() {
        return running.size();
    }

    /** How many runs were killed at their deadline so far. */
    public long killedOnTimeout() {
        return killedOnTimeout.get();
    }

    private static Result result(Ending ending, int exitCode, Capture out, Capture err, boolean heldOpen) {
        return new Result(ending, exitCode, out.bytes(), err.bytes(), err.total(), heldOpen);
    }

    private static void remember(Process process, Set<ProcessHandle> tree) {
        try {
            process.descendants().forEach(tree::add);
        } catch (RuntimeException e) {
            // /proc can change under our feet; the next poll tries again.
        }
    }

    /**
     * Kills the process and every descendant it has or had (as far as we saw them): the driver first, so it
     * cannot start new children, then each known descendant after collecting its own children.
     */
    static void killTree(Process process, Set<ProcessHandle> known) {
        Deque<ProcessHandle> queue = new ArrayDeque<>(known);
        try {
            process.descendants().forEach(queue::add);
        } catch (RuntimeException ignored) {
            // fall back to what we remembered
        }
        process.destroyForcibly();
        Set<Long> seen = new HashSet<>();
        List<ProcessHandle> killed = new ArrayList<>();
        while (!queue.isEmpty()) {
            ProcessHandle h = queue.poll();
            if (!seen.add(h.pid()) || !h.isAlive()) {
                continue;
            }
            try {
                h.children().forEach(queue::add);
            } catch (RuntimeException ignored) {
                // it may have died meanwhile
            }
            h.destroyForcibly();
            killed.add(h);
        }
        // SIGKILL is delivered asynchronously: wait (bounded) until they are gone, so that what is killed when
        // this returns is dead. The namespace's init only ends once the kernel has killed the whole namespace.
        long end = System.nanoTime() + DRAIN_AFTER_KILL.toNanos();
        try {
            process.waitFor(DRAIN_AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS);
            for (ProcessHandle h : killed) {
                h.onExit().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("a killed driver process did not end within {}", DRAIN_AFTER_KILL);
        }
    }

    /**
     * Waits for a reader to reach the end of its stream, after the driver exited: {@link #EXIT_GRACE} when a child
     * may hold the stream open, until {@code deadline} in a PID namespace (the namespace ended with the driver, so the
     * end comes as soon as the reader runs); false when it did not.
     */
    private boolean awaitEnd(Future<?> reader, long deadline) throws InterruptedException {
        long wait = contained() ? Math.max(exitGrace.toNanos(), deadline - System.nanoTime()) : exitGrace.toNanos();
        try {
            reader.get(wait, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            LOG.debug("reading the driver's output failed: {}", e.getCause().toString());
            return true;
        }
    }

    private static void awaitQuietly(Future<?>... readers) {
        for (Future<?> f : readers) {
            try {
                f.get(DRAIN_AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                f.cancel(true);
            }
        }
    }

    private static void writeStdin(Process process, byte[] stdin) {
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin);
        } catch (IOException e) {
            // The driver exited (or closed stdin) without reading its secrets: its business.
            LOG.debug("driver did not read its stdin: {}", e.toString());
        }
    }

    /** Keeps the first {@code limit} bytes of a stream, drains (and counts) the rest. */
    private static final class Capture {
        private final int limit;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long total;
        private volatile boolean overflowed;

        Capture(int limit) {
            this.limit = limit;
        }

        Void drain(InputStream in, Runnable onOverflow) throws IOException {
            byte[] buffer = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buffer)) != -1) {
                    synchronized (this) {
                        total += n;
                        int room = limit - kept.size();
                        if (room > 0) {
                            kept.write(buffer, 0, Math.min(room, n));
                        }
                    }
                    if (total > limit && !overflowed) {
                        overflowed = true;
                        if (onOverflow != null) {
                            onOverflow.run();
                            return null;
                        }
                    }
                }
            }
            return null;
        }

        boolean overflowed() {
            return overflowed;
        }

        synchronized byte[] bytes() {
            return kept.toByteArray();
        }

        synchronized long total() {
            return total;
        }
    }
}

package io.volrep.it.ceph;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.volrep.cli.VolrepCommand;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.ReplicationSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The two-site Ceph lab ({@code lab/ceph-two-sites}) for the Ceph integration tests: started once per test JVM, the
 * first time a test class with this extension runs, and stopped ({@code down}, its directory removed) when the JUnit
 * run ends, whatever the tests did (it lives in the root context's store, which closes it), or when the JVM is stopped
 * (a shutdown hook). Where the Ceph packages are missing, the classes are skipped with the reason. Each test class uses
 * its own images: {@code vol-0}..{@code vol-7} exist on site A, replication disabled, when the lab is up.
 *
 * <pre>{@code
 * @ExtendWith(CephLab.class)
 * class MyCephIT {
 *     @Test void something(CephLab.Lab lab) { lab.rbd("site-a", "info", "rbd/vol-0"); }
 * }
 * }</pre>
 */
public final class CephLab implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CephLab.class);
    // Hang-catchers, not paces: each wait ends when its condition holds, and a loaded machine (issue 44: two CPU-bound
    // processes beside the build on 2 shared cores) may take several times the quiet machine's figures.
    static final Duration UP_TIMEOUT = Duration.ofMinutes(10);
    static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(10);
    static final Duration BACKGROUND_TIMEOUT = Duration.ofMinutes(40);

    @Override
    public void beforeAll(ExtensionContext context) {
        String missing = CephPackages.missing();
        assumeTrue(missing == null, () -> "ceph: " + missing + ": Ceph integration tests skipped");
        assumeTrue(Files.isRegularFile(jar()), "replication-cli/target/volrep.jar is missing: build the module first");
        lab(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Lab.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return lab(context);
    }

    private static Lab lab(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        Lab.class,
                        k -> {
                            Lab lab = Lab.start();
                            // The conformance suite mostly waits on Ceph: it runs beside the other tests from the
                            // start, on its own images; whatever stops a site, a plugin or an rbd-mirror waits for it
                            // (that would disturb it). CephConformanceIT judges its result.
                            lab.conformance = lab.inBackground(() -> CephConformanceIT.run(lab));
                            return lab;
                        },
                        Lab.class);
    }

    /** The repository root: the nearest directory upwards holding {@code lab/ceph-two-sites}. */
    static Path repoRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("lab/ceph-two-sites"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no lab/ceph-two-sites above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    static Path jar() {
        return repoRoot().resolve("replication-cli/target/volrep.jar");
    }

    /** What a command printed and how it ended. */
    record Result(int exit, String out, String err) {
        Result requireSuccess(String what) {
            if (exit != 0) {
                fail(what + " exited " + exit + "\nstdout: " + out + "\nstderr: " + err);
            }
            return this;
        }
    }

    /** A running lab: its two plugins' endpoints, the rbd CLI of each site, and volrep's command line. */
    public static final class Lab implements AutoCloseable {
        private final Path dir;
        private final Thread downOnExit;
        private final List<ManagedChannel> channels = new ArrayList<>();
        private final Duration upTook;
        private final ExecutorService background = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "ceph-lab-background");
            t.setDaemon(true);
            return t;
        });
        private final List<CompletableFuture<?>> backgroundWork = new ArrayList<>();
        private volatile CompletableFuture<CephConformanceIT.Run> conformance;

        private Lab(Path dir, Duration upTook) {
            this.dir = dir;
            this.upTook = upTook;
            this.downOnExit = new Thread(this::down, "ceph-lab-down");
            Runtime.getRuntime().addShutdownHook(downOnExit);
        }

        static Lab start() {
            Path dir;
            try {
                // short: the plugins' unix socket paths must stay under 108 bytes
                dir = Files.createTempDirectory(Path.of("/tmp"), "vrc-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long start = System.nanoTime();
            Result up = script(COMMAND_TIMEOUT.plus(UP_TIMEOUT), "up", dir.toString());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (up.exit() != 0) {
                script(COMMAND_TIMEOUT, "down", dir.toString());
                delete(dir);
                fail("lab/ceph-two-sites up failed (exit " + up.exit() + "):\n" + up.out() + up.err());
            }
            System.out.println("[ceph lab] up in " + took.toMillis() + " ms: "
                    + up.out().strip().replace('\n', ' '));
            return new Lab(dir, took);
        }

        /**
         * Runs {@code work} beside the tests, from now; {@link #stopSite}, {@link #restartPlugin} and {@link #site}
         * wait for it first.
         */
        synchronized <T> CompletableFuture<T> inBackground(Supplier<T> work) {
            CompletableFuture<T> f = CompletableFuture.supplyAsync(work, background);
            backgroundWork.add(f);
            return f;
        }

        /** The conformance run started beside the tests when the lab came up ({@link CephConformanceIT#run}). */
        CompletableFuture<CephConformanceIT.Run> conformance() {
            return conformance;
        }

        /** Waits for the work started beside the tests (the conformance suite) to finish. */
        void awaitBackground() {
            List<CompletableFuture<?>> work;
            synchronized (this) {
                work = List.copyOf(backgroundWork);
            }
            for (CompletableFuture<?> f : work) {
                try {
                    f.get(BACKGROUND_TIMEOUT.toMinutes(), TimeUnit.MINUTES);
                } catch (ExecutionException e) {
                    // its test reports it
                } catch (TimeoutException e) {
                    fail("background work did not finish within " + BACKGROUND_TIMEOUT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail("interrupted waiting for background work");
                }
            }
        }

        /** How long {@code up} took. */
        Duration upTook() {
            return upTook;
        }

        Path dir() {
            return dir;
        }

        /** {@code unix://DIR/site-a.sock} or {@code unix://DIR/site-b.sock}. */
        String endpoint(String site) {
            return "unix://" + dir.resolve(site + ".sock");
        }

        /**
         * A raw gRPC stub for a site's plugin (the spec's codes exactly as the plugin answers, no retries); each call
         * has a deadline of {@code callDeadline}.
         */
        ControllerGrpc.ControllerBlockingStub stub(String site, Duration callDeadline) {
            ManagedChannel channel = Grpc.newChannelBuilder(endpoint(site), InsecureChannelCredentials.create())
                    .overrideAuthority("localhost")
                    .build();
            synchronized (channels) {
                channels.add(channel);
            }
            return ControllerGrpc.newBlockingStub(channel).withInterceptors(new ClientInterceptor() {
                @Override
                public <Q, A> ClientCall<Q, A> interceptCall(
                        MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
                    return next.newCall(
                            method, options.withDeadlineAfter(callDeadline.toMillis(), TimeUnit.MILLISECONDS));
                }
            });
        }

        static ReplicationSource volume(String id) {
            return ReplicationSource.newBuilder()
                    .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(id))
                    .build();
        }

        /** {@code rbd ARGS} against a site (through the lab). */
        Result rbd(String site, String... args) {
            List<String> all = new ArrayList<>(List.of("rbd", dir.toString(), site));
            all.addAll(List.of(args));
            return script(COMMAND_TIMEOUT, all.toArray(String[]::new));
        }

        /** The image's mirroring role on a site: "primary", "non-primary", "disabled" or "absent". */
        String role(String site, String image) {
            Result r = rbd(site, "info", "rbd/" + image, "--format", "json");
            if (r.exit() != 0) {
                return "absent";
            }
            if (!r.out().contains("\"mirroring\"") || r.out().contains("\"state\":\"disabled\"")) {
                return "disabled";
            }
            return r.out().contains("\"primary\":true") ? "primary" : "non-primary";
        }

        /** SHA-256 of {@code rbd export IMAGE -} on a site: the image's bytes, read through librbd. */
        String sha256(String site, String image) {
            Path err = null;
            try {
                err = Files.createTempFile("vrc-export-", ".err");
                Process p = new ProcessBuilder(
                                repoRoot().resolve("lab/ceph-two-sites").toString(),
                                "rbd",
                                dir.toString(),
                                site,
                                "export",
                                "--no-progress",
                                "rbd/" + image,
                                "-")
                        .redirectError(err.toFile())
                        .start();
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                try (InputStream in = p.getInputStream()) {
                    byte[] buffer = new byte[1 << 16];
                    int n;
                    while ((n = in.read(buffer)) != -1) {
                        digest.update(buffer, 0, n);
                    }
                }
                if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    fail("rbd export " + image + " on " + site + " failed: " + Files.readString(err));
                }
                return HexFormat.of().formatHex(digest.digest());
            } catch (IOException | NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                if (err != null) {
                    err.toFile().delete();
                }
            }
        }

        /** Stops a site's Ceph daemons (its plugin keeps serving): a disaster. Background work finishes first. */
        void stopSite(String site) {
            awaitBackground();
            script(COMMAND_TIMEOUT, "stop-site", dir.toString(), site).requireSuccess("stop-site " + site);
        }

        /** Starts a stopped site again (its data kept), and waits until it serves reads. */
        void startSite(String site) {
            script(COMMAND_TIMEOUT, "start-site", dir.toString(), site).requireSuccess("start-site " + site);
        }

        /**
         * Kills a site's plugin (SIGKILL: no drain, no goodbye) and starts it again ({@code up} starts whatever of the
         * lab does not run), as a crashed and restarted plugin process. Background work finishes first: the
         * conformance suite runs against this plugin, and a call of its in flight would end {@code 2 UNKNOWN (channel
         * closed)} (seen under load, when the suite still ran as the plugin was killed).
         */
        void restartPlugin(String site) {
            awaitBackground();
            Path pidFile = dir.resolve("pids").resolve(site + "-plugin.pid");
            try {
                long pid = Long.parseLong(Files.readString(pidFile).strip());
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroyForcibly();
                    p.onExit().orTimeout(30, TimeUnit.SECONDS).join();
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            script(COMMAND_TIMEOUT, "up", dir.toString()).requireSuccess("up (restarting the plugin of " + site + ")");
        }

        /** {@code volrep ARGS}, in this JVM (the plugins run from the jar, in their own processes). */
        Result volrep(String... args) {
            var cli = VolrepCommand.commandLine();
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            int exit = cli.execute(args);
            return new Result(exit, out.toString(), err.toString());
        }

        /** Polls {@code condition} every second until it holds, failing with {@code what} after {@code timeout}. */
        static void await(Duration timeout, String what, BooleanSupplier condition) {
            long end = System.nanoTime() + timeout.toNanos();
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > end) {
                    fail("timed out after " + timeout + " waiting for " + what);
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail("interrupted waiting for " + what);
                }
            }
        }

        /**
         * {@code lab/ceph-two-sites COMMAND DIR SITE}: one part of one site, e.g. {@code stop-mirror}, {@code
         * start-mirror}, {@code kill-plugin} (SIGKILL), {@code start-plugin} (waits until it serves). Background work
         * finishes first, as for {@link #stopSite}: each of these disturbs what the conformance suite runs against.
         */
        void site(String command, String site) {
            awaitBackground();
            script(COMMAND_TIMEOUT, command, dir.toString(), site).requireSuccess(command + " " + site);
        }

        /**
         * {@code java -jar volrep.jar ARGS} in a process of its own, so that a test can kill it (SIGKILL), with {@code
         * env} added to its environment and its stdin a pipe held by the test (the failover's test hook resumes on a
         * line and halts at its end).
         */
        VolrepProcess volrepProcess(Map<String, String> env, String... args) {
            List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar().toString()));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(env);
            try {
                return new VolrepProcess(pb.start());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Stops everything {@code up} started and removes the directory (its OSDs' 2 GiB sparse files). */
        @Override
        public void close() {
            try {
                Runtime.getRuntime().removeShutdownHook(downOnExit);
            } catch (IllegalStateException e) {
                // the JVM is exiting: the hook runs down
            }
            down();
            background.shutdownNow();
        }

        private synchronized void down() {
            synchronized (channels) {
                channels.forEach(ManagedChannel::shutdownNow);
                channels.clear();
            }
            if (Files.isDirectory(dir)) {
                Result r = script(COMMAND_TIMEOUT, "down", dir.toString());
                if (r.exit() != 0) {
                    System.err.println("[ceph lab] down " + dir + " failed: " + r.err());
                    return; // keep the directory: something of it may still run
                }
                keepPluginLogs();
                delete(dir);
            }
        }

        /**
         * Copies the plugins' logs (a line per call, the driver's decisions) to target/ceph-lab-logs before the lab's
         * directory goes: a check that failed on the lab is explained there.
         */
        private void keepPluginLogs() {
            Path keep = Path.of("target", "ceph-lab-logs");
            try {
                Files.createDirectories(keep);
                for (String site : List.of("site-a", "site-b")) {
                    Path log = dir.resolve(site).resolve("log").resolve("plugin.out");
                    if (Files.exists(log)) {
                        Files.copy(log, keep.resolve(site + "-plugin.out"), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            } catch (IOException e) {
                System.err.println("[ceph lab] cannot keep the plugins' logs: " + e);
            }
        }
    }

    /** A {@code volrep} process started by {@link Lab#volrepProcess}: its output as it comes, its stdin, its end. */
    static final class VolrepProcess {
        private final Process process;

        @SuppressWarnings("JdkObsolete") // appended by a reader thread, read by the test's: synchronized on purpose
        private final StringBuffer out = new StringBuffer();

        @SuppressWarnings("JdkObsolete") // as out
        private final StringBuffer err = new StringBuffer();

        private final List<Thread> readers = new ArrayList<>();

        VolrepProcess(Process process) {
            this.process = process;
            readers.add(drain(process.getInputStream(), out));
            readers.add(drain(process.getErrorStream(), err));
        }

        private static Thread drain(InputStream in, StringBuffer into) {
            Thread t = new Thread(
                    () -> {
                        try (var r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = r.readLine()) != null) {
                                into.append(line).append('\n');
                            }
                        } catch (IOException e) {
                            // the process is gone
                        }
                    },
                    "volrep-process-output");
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** Waits until stderr holds {@code text}, failing after {@code timeout} or when the process ends first. */
        void awaitErr(String text, Duration timeout) {
            Lab.await(timeout, "volrep to print \"" + text + "\" on stderr", () -> {
                if (err.indexOf(text) >= 0) {
                    return true;
                }
                if (!process.isAlive() && err.indexOf(text) < 0) {
                    fail("volrep ended (exit " + process.exitValue() + ") before printing \"" + text + "\":\n" + err
                            + out);
                }
                return false;
            });
        }

        /** A line on its stdin (the test hook resumes). */
        void resume() {
            try {
                process.getOutputStream().write('\n');
                process.getOutputStream().flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** SIGKILL, as an orchestrator dies: no clean-up, no answer awaited. */
        void kill() {
            process.destroyForcibly();
            try {
                if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    fail("volrep did not end after SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** Waits for its end (killed past {@code timeout}, and failed). */
        Result awaitExit(Duration timeout) {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    fail("volrep did not end within " + timeout + ":\n" + err + out);
                }
                process.getOutputStream().close();
                for (Thread reader : readers) {
                    reader.join(COMMAND_TIMEOUT.toMillis()); // to the end of its pipe
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (IOException e) {
                // stdin already closed
            }
            return new Result(process.exitValue(), out.toString(), err.toString());
        }

        String err() {
            return err.toString();
        }
    }

    /** Runs {@code lab/ceph-two-sites ARGS} to its end, killed past {@code timeout}. */
    static Result script(Duration timeout, String... args) {
        List<String> cmd =
                new ArrayList<>(List.of(repoRoot().resolve("lab/ceph-two-sites").toString()));
        cmd.addAll(List.of(args));
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("vrc-out-", ".log");
            err = Files.createTempFile("vrc-err-", ".log");
            ProcessBuilder pb =
                    new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().put("VOLREP_JAR", jar().toString());
            Process p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Result(
                        -1, Files.readString(out), Files.readString(err) + "\n(killed after " + timeout + ")");
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + cmd, e);
        } finally {
            for (Path p : new Path[] {out, err}) {
                if (p != null) {
                    p.toFile().delete();
                }
            }
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("[ceph lab] cannot remove " + dir + ": " + e);
        }
    }

    /** The status a blocking stub's call ended with: OK, or the code and message it was refused with. */
    static Status statusOf(Runnable call) {
        try {
            call.run();
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }
}

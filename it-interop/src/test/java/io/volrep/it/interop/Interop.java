package io.volrep.it.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.cli.VolrepCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * Shared plumbing of the interop ITs: where the repository, the volrep jar and the Node peers are, starting
 * peers as child processes with bounded waits, and running one-shot commands. Every process started here is
 * owned by a {@link Peer} or waited for; tests register their peers with {@code GrpcCleanup}, which closes them
 * after each test.
 */
final class Interop {
    // Hang-catchers, not paces: on a loaded machine (CI, two CPU-bound processes beside the build on 2 cores) a node
    // peer took over 20 s to start and a probe run over a minute (issue 44); a test waits for its condition, and these
    // bounds only end a test that hangs.
    static final Duration START_TIMEOUT = Duration.ofMinutes(5);
    static final Duration RUN_TIMEOUT = Duration.ofMinutes(10);

    private Interop() {}

    /** The repository root: the nearest directory upwards holding {@code interop/package.json}. */
    static Path repoRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("interop/package.json"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no interop/package.json above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    static Path interopDir() {
        return repoRoot().resolve("interop");
    }

    static Path jar() {
        return repoRoot().resolve("replication-cli/target/volrep.jar");
    }

    /** Skips the calling test, with the reason, when Node or the interop dependencies or the jar are missing. */
    static void assumeNodeAndJar() {
        assumeTrue(nodeVersion() != null, "node is not on the PATH: Node interop tests skipped");
        assumeTrue(
                Files.isDirectory(interopDir().resolve("node_modules/@grpc/grpc-js")),
                "interop/node_modules is missing (run: cd interop && npm ci --ignore-scripts): Node interop tests skipped");
        assumeTrue(Files.isRegularFile(jar()), "replication-cli/target/volrep.jar is missing: build the module first");
    }

    private static volatile String nodeVersion;

    static String nodeVersion() {
        if (nodeVersion == null) {
            try {
                Process p = new ProcessBuilder("node", "--version")
                        .redirectErrorStream(true)
                        .start();
                if (p.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) && p.exitValue() == 0) {
                    nodeVersion = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                } else {
                    p.destroyForcibly();
                }
            } catch (IOException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return nodeVersion;
    }

    /** A short, unique unix socket path under /tmp (unix socket paths must stay under 108 bytes). */
    static Path socketPath() {
        return Path.of("/tmp/vri-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + ".sock");
    }

    /** {@code java -jar volrep.jar args...}. */
    static List<String> volrep(String... args) {
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-jar", jar().toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** {@code node interop/<script> args...}. */
    static List<String> node(String script, String... args) {
        List<String> cmd =
                new ArrayList<>(List.of("node", interopDir().resolve(script).toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Whether the CLI has {@code subcommand} with {@code option} (null: any). Read from the command classes on the
     * test class path, which the jar under test is built from: no JVM start per question.
     */
    static boolean cliSupports(String subcommand, String option) {
        CommandLine sub = VolrepCommand.commandLine().getSubcommands().get(subcommand);
        return sub != null && (option == null || sub.getCommandSpec().findOption(option) != null);
    }

    /** What a finished command did: its exit code and its stdout and stderr, interleaved. */
    record Result(int exit, String output) {}

    /** Runs {@code cmd} to completion within {@code timeout} (killed and failed past it). */
    static Result run(List<String> cmd, Duration timeout) {
        Path log = null;
        Process p = null;
        try {
            log = Files.createTempFile("vri-run-", ".log");
            p = new ProcessBuilder(cmd)
                    .directory(repoRoot().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                fail("timed out after " + timeout + ": " + String.join(" ", cmd) + "\n" + Files.readString(log));
            }
            return new Result(p.exitValue(), Files.readString(log));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + cmd, e);
        } finally {
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    /** A long-running child process (a plugin) listening on a unix socket. */
    static final class Peer implements AutoCloseable {
        final Path socket;
        final Path log;
        private final Process process;

        private Peer(Path socket, Path log, Process process) {
            this.socket = socket;
            this.log = log;
            this.process = process;
        }

        /** Starts {@code cmd} (which must listen on {@code socket}) and waits until the socket accepts. */
        static Peer start(Path socket, List<String> cmd) {
            try {
                Path log = Files.createTempFile("vri-peer-", ".log");
                Process p = new ProcessBuilder(cmd)
                        .directory(repoRoot().toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
                Peer peer = new Peer(socket, log, p);
                long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
                while (!(Files.exists(socket) && Files.readString(log).contains("listening on"))) {
                    if (!p.isAlive() || System.nanoTime() > deadline) {
                        String out = Files.readString(log);
                        peer.close();
                        fail("peer did not start listening on " + socket + ": " + String.join(" ", cmd) + "\n" + out);
                    }
                    Thread.sleep(50);
                }
                return peer;
            } catch (IOException e) {
                throw new IllegalStateException("cannot start " + cmd, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted starting " + cmd, e);
            }
        }

        String endpoint() {
            return "unix://" + socket;
        }

        long pid() {
            return process.pid();
        }

        String output() {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                return "(no log: " + e + ")";
            }
        }

        /** SIGTERM, and the exit status once the peer has stopped (within START_TIMEOUT); -1 when it did not stop. */
        int terminate() throws InterruptedException {
            process.destroy();
            return process.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) ? process.exitValue() : -1;
        }

        /** SIGTERM, then SIGKILL after 5 s; the socket file and the log are removed. */
        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
            try {
                Files.deleteIfExists(socket);
                Files.deleteIfExists(log);
            } catch (IOException ignored) {
                // best effort: /tmp is cleaned by the system
            }
        }
    }
}

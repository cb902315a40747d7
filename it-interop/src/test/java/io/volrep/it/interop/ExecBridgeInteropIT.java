package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's criterion: a driver executable served by {@code volrep serve-exec} answers the independent wire probe
 * (interop/client.js: error rows, lifecycle with repeated calls, concurrency, malformed bytes, unknown method)
 * with the spec's codes, and while it runs no process on the machine carries the secret value in its arguments
 * or environment. The driver is the repository's example (examples/exec-driver), not an independent one.
 */
class ExecBridgeInteropIT {
    private static final String CASES = String.join(
            ",",
            "missing replication_source",
            "nonexistent volume -> ",
            "wrong secret values",
            "no secrets",
            "volume with replication disabled",
            "replication enabled, primary",
            "lifecycle volume vol-3",
            "16 simultaneous EnableVolumeReplication on vol-5",
            "malformed",
            "still serves",
            "unknown method",
            "over 4 KiB");

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @TempDir
    Path dir;

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
        assumeTrue(Interop.cliSupports("serve-exec", "--driver"), "volrep serve-exec has not landed (issue 8)");
        assumeTrue(
                Files.isExecutable(Interop.repoRoot().resolve("examples/exec-driver/volrep-exec-example")),
                "examples/exec-driver/volrep-exec-example is missing");
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc: cannot scan process arguments");
    }

    @Test
    void servedDriverAnswersTheIndependentProbeAndNoProcessCarriesTheSecret() throws Exception {
        String secret =
                "exec-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        Path secrets = Files.writeString(dir.resolve("secrets.json"), "{\"user\":\"" + secret + "\"}");
        var socket = Interop.socketPath();
        Peer bridge = Peer.start(
                socket,
                Interop.volrep(
                        "serve-exec",
                        "--driver",
                        Interop.repoRoot()
                                .resolve("examples/exec-driver/volrep-exec-example")
                                .toString(),
                        "--listen",
                        "unix://" + socket,
                        "--env",
                        "VOLREP_EXEC_STATE_DIR=" + dir.resolve("state"),
                        "--env",
                        "VOLREP_EXEC_SECRETS_FILE=" + secrets));
        cleanup.register(bridge);

        ProcessScanner scanner = new ProcessScanner(secret.getBytes(StandardCharsets.UTF_8));
        Thread scan = new Thread(scanner, "proc-scan");
        scan.setDaemon(true);
        scan.start();
        Result r;
        try {
            r = Interop.run(
                    Interop.node(
                            "client.js",
                            "--endpoint",
                            bridge.endpoint(),
                            "--secrets-file",
                            secrets.toString(),
                            "--only",
                            CASES),
                    Interop.RUN_TIMEOUT);
        } finally {
            scanner.stop.set(true);
            scan.join(5000);
        }

        assertThat(r.output()).as(r.output()).doesNotContain("FAIL ").contains(" 0 mismatches");
        assertThat(r.exit()).isZero();
        assertThat(scanner.driverProcessesSeen)
                .as("the scan saw driver processes (else it proves nothing)")
                .isNotEmpty();
        assertThat(scanner.carriers)
                .as("processes whose arguments or environment held the secret value")
                .isEmpty();
        assertThat(bridge.output()).doesNotContain(secret);
        assertThat(bridge.terminate())
                .as("serve-exec exits 0 after a SIGTERM drain:\n%s", bridge.output())
                .isZero();
    }

    /** Polls every process's cmdline and environ for a byte string while the probe runs. */
    static final class ProcessScanner implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        final Set<String> carriers = ConcurrentHashMap.newKeySet();
        final Set<Long> driverProcessesSeen = ConcurrentHashMap.newKeySet();
        private final byte[] needle;

        ProcessScanner(byte[] needle) {
            this.needle = needle;
        }

        @Override
        public void run() {
            byte[] driverName = "volrep-exec-example".getBytes(StandardCharsets.UTF_8);
            while (!stop.get()) {
                ProcessHandle.allProcesses().forEach(ph -> {
                    for (String file : List.of("cmdline", "environ")) {
                        try {
                            byte[] data = Files.readAllBytes(Path.of("/proc", Long.toString(ph.pid()), file));
                            if (file.equals("cmdline") && contains(data, driverName)) {
                                driverProcessesSeen.add(ph.pid());
                            }
                            if (contains(data, needle)) {
                                carriers.add(ph.pid() + " " + file + ": "
                                        + new String(data, StandardCharsets.UTF_8).replace('\0', ' '));
                            }
                        } catch (IOException | SecurityException e) {
                            // the process ended, or is not ours to read
                        }
                    }
                });
                try {
                    Thread.sleep(2); // a short pause: sampling, not a busy loop that starves the driver
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        private static boolean contains(byte[] hay, byte[] needle) {
            outer:
            for (int i = 0; i + needle.length <= hay.length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (hay[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }
    }
}

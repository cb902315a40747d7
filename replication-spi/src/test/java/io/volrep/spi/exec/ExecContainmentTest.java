package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.driverScript;
import static io.volrep.spi.exec.ExecHarness.script;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13.2: no process a driver started outlives the call's timeout or the server's close, not even a daemon
 * that left the driver's process tree at once (setsid and a double fork), which polling the tree cannot catch.
 */
class ExecContainmentTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    /**
     * A helper that daemonizes a {@code sleep 120} the classic way: it forks a child that calls setsid (a new
     * session, no terminal), the helper exits at once, so the daemon is re-parented away from the driver. The
     * daemon appends its pid as the host sees it (from /proc/self, which is the host's /proc) to {@code $1};
     * with {@code keep} as {@code $2} it also keeps the driver's stdout and stderr open.
     */
    private Path daemonizer() throws Exception {
        return script(dir, "daemonize", """
                if [ "$1" = child ]; then
                  read -r pid _ < /proc/self/stat; echo "$pid" >> "$2"; exec sleep 120
                fi
                if [ "$2" = keep ]; then setsid "$0" child "$1" < /dev/null &
                else setsid "$0" child "$1" < /dev/null > /dev/null 2>&1 &
                fi
                exit 0\
                """);
    }

    @Test
    void aDoubleForkedDaemonDoesNotOutliveTheTimeout() throws Exception {
        Path pids = dir.resolve("pids");
        Path driver = driverScript(dir, daemonizer() + " " + pids + "\nsleep 60\necho '{\"status\":\"Success\"}'");
        ExecHarness h = grpc.register(ExecHarness.inProcess(ExecDriver.builder()
                .executable(driver)
                .timeout(Duration.ofMillis(1500))
                .build()));
        assertThat(h.enable("vol-1").getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        List<Long> daemon = ProcessTrees.readPids(pids);
        assertThat(daemon).hasSize(1);
        assertThat(ProcessTrees.awaitGone(daemon, 3000))
                .as("the daemon outlived the timeout")
                .isEmpty();
        assertThat(h.driver.stats().killedOnTimeout()).isEqualTo(1);
    }

    @Test
    void aDoubleForkedDaemonDoesNotOutliveTheServer() throws Exception {
        Path pids = dir.resolve("pids");
        Path driver = driverScript(dir, daemonizer() + " " + pids + "\nsleep 60\necho '{\"status\":\"Success\"}'");
        ExecHarness h =
                ExecHarness.inProcess(ExecDriver.builder().executable(driver).build());
        Thread call = new Thread(() -> h.enable("vol-1"));
        call.start();
        ProcessTrees.awaitFile(pids);
        h.driver.close();
        call.join(10_000);
        assertThat(call.isAlive()).isFalse();
        assertThat(ProcessTrees.awaitGone(ProcessTrees.readPids(pids), 3000))
                .as("the daemon outlived the server")
                .isEmpty();
        h.close();
    }

    @Test
    void whatADriverLeftBehindEndsWithItsAnswerEvenWhenItHoldsTheOutput() throws Exception {
        // The daemon keeps the driver's stdout and stderr open: the call must neither wait for it nor leave it
        // running (nor keep a reader thread blocked on its pipe).
        Path pids = dir.resolve("pids");
        Path driver = driverScript(
                dir,
                daemonizer() + " " + pids + " keep\n" + "while [ ! -s " + pids
                        + " ]; do sleep 0.05; done\necho '{\"status\":\"Success\"}'");
        ExecHarness h = grpc.register(ExecHarness.inProcess(ExecDriver.builder()
                .executable(driver)
                .timeout(Duration.ofSeconds(20))
                .build()));
        long start = System.nanoTime();
        assertThat(h.enable("vol-1").getCode()).isEqualTo(Status.Code.OK);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        ProcessTrees.awaitFile(pids);
        assertThat(ProcessTrees.awaitGone(ProcessTrees.readPids(pids), 3000)).isEmpty();
        assertThat(h.driver.stats().running()).isZero();
    }
}

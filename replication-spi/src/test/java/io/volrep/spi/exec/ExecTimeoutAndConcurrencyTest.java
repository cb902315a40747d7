package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.driverScript;
import static io.volrep.spi.exec.ExecHarness.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Deadlines kill whole process trees; different sources run in parallel; one source is guarded. */
class ExecTimeoutAndConcurrencyTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    @Test
    void aSlowDriverPastItsTimeoutIsKilledWithItsWholeTree() throws Exception {
        Path pids = dir.resolve("pids");
        // The driver, a background child, and a grandchild (sh -c running sleep): all must go.
        Path driver = driverScript(
                dir,
                ExecHarness.HOST_PID + " >> " + pids + "\n"
                        + "sh -c '" + ExecHarness.HOST_PID + " >> " + pids + "; exec sleep 60' &\n"
                        + "sh -c '" + ExecHarness.HOST_PID + " >> " + pids + "; sleep 60; true' &\n"
                        + "sleep 60\necho '{\"status\":\"Success\"}'");
        ExecHarness h = grpc.register(ExecHarness.inProcess(ExecDriver.builder()
                .executable(driver)
                .timeout(Duration.ofMillis(1500))
                .build()));
        long start = System.nanoTime();
        Status status = h.enable("vol-1");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(status.getDescription())
                .contains("exec driver " + driver, "(enable)", "no answer within PT1.5S", "process tree was killed");
        assertThat(took).isBetween(Duration.ofMillis(1400), Duration.ofSeconds(10));
        List<Long> tree = ProcessTrees.readPids(pids);
        assertThat(tree).hasSize(3);
        assertThat(ProcessTrees.awaitGone(tree, 3000))
                .as("driver processes left behind")
                .isEmpty();
        assertThat(h.driver.stats().running()).isZero();
    }

    @Test
    void aBackgroundChildLeftByADriverThatAnsweredDoesNotHoldTheCall() throws Exception {
        // Without containment (OFF): the answer counts, the child lives on (the bridge reads what the driver
        // printed, and stops waiting for the pipe shortly after the driver exits). With containment the child
        // ends with the driver: ExecContainmentTest.
        Path pids = dir.resolve("pids");
        Path driver = driverScript(dir, "sleep 60 & echo $! >> " + pids + "\necho '{\"status\":\"Success\"}'");
        ExecHarness h = grpc.register(ExecHarness.inProcess(ExecDriver.builder()
                .executable(driver)
                .containment(ExecDriver.Containment.OFF)
                .timeout(Duration.ofSeconds(5))
                .build()));
        long start = System.nanoTime();
        assertThat(h.enable("vol-1").getCode()).isEqualTo(Status.Code.OK);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        List<Long> child = ProcessTrees.readPids(pids);
        assertThat(ProcessTrees.running(child)).hasSize(1);
        child.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    @Test
    void differentSourcesRunInParallelAndOneSourceIsGuarded() throws Exception {
        Path log = dir.resolve("log");
        // Each call records its start and end; overlapping calls for one source would show in the log.
        Path driver = driverScript(
                dir,
                "id=$(printf '%s' \"$2\" | sed 's/.*\"id\":\"\\([^\"]*\\)\".*/\\1/')\n"
                        + "echo \"start $id\" >> " + log + "\nsleep 1\necho \"end $id\" >> " + log + "\n"
                        + "echo '{\"status\":\"Success\"}'");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (ExecHarness h =
                ExecHarness.inProcess(ExecDriver.builder().executable(driver).build())) {
            List<Callable<Status>> calls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String id = "vol-" + i;
                calls.add(() -> h.enable(id));
            }
            long start = System.nanoTime();
            List<Status> results = new ArrayList<>();
            for (Future<Status> f : pool.invokeAll(calls)) {
                results.add(f.get());
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(results).extracting(Status::getCode).containsOnly(Status.Code.OK);
            assertThat(took).as("6 one-second calls for 6 sources in parallel").isLessThan(Duration.ofMillis(4500));

            // Two concurrent calls for the same source: the runtime lets one through, the other is ABORTED.
            Future<Status> first = pool.submit(() -> h.promote(volume("vol-0"), Map.of()));
            Thread.sleep(300);
            Status second = h.demote(volume("vol-0"), Map.of());
            assertThat(second.getCode()).isEqualTo(Status.Code.ABORTED);
            assertThat(first.get().getCode()).isEqualTo(Status.Code.OK);
        } finally {
            pool.shutdownNow();
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).filteredOn(l -> l.startsWith("start")).hasSize(7);
        assertThat(lines).filteredOn(l -> l.equals("start vol-0")).hasSize(2);
        int firstEnd = lines.indexOf("end vol-0");
        assertThat(lines.lastIndexOf("start vol-0"))
                .as("vol-0's calls never overlap")
                .isGreaterThan(firstEnd);
    }
}

package io.volrep.spi.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A driver that printed its answer and exited: all of it is read, however late the reader thread gets a CPU (issue
 * 44, a loaded machine: the example exec driver's answer was taken as "printed nothing on stdout (exit code 0)"
 * because the readers had a fixed 500 ms after the driver's exit). In a PID namespace the driver's exit ends every
 * process that could hold its output open, so the end of the stream is certain and only the reader's turn is awaited.
 * The grace given to a reader is 0 here, as on a machine where the reader's thread runs only after it: the output
 * must still be whole.
 */
class ProcessRunnerOutputTest {
    private static final List<String> NAMESPACE = List.of("unshare", "--pid", "--fork", "--kill-child");
    /** More than a pipe holds (64 KiB): the driver exits with the last part still unread. */
    private static final int ANSWER_BYTES = 200_000;

    private static boolean namespacesWork() throws Exception {
        try {
            Process p = new ProcessBuilder("unshare", "--pid", "--fork", "--kill-child", "/bin/sh", "-c", "exit 0")
                    .redirectErrorStream(true)
                    .start();
            return p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void inAPidNamespaceTheWholeAnswerIsReadThoughTheReaderRunsAfterTheDriverExited() throws Exception {
        assumeTrue(namespacesWork(), "PID namespaces do not work here (unshare --pid --fork): nothing to show");
        try (ProcessRunner runner = new ProcessRunner(1 << 20, 8192, NAMESPACE, Duration.ZERO)) {
            for (int i = 0; i < 20; i++) {
                ProcessRunner.Result r = runner.run(
                        List.of("/bin/sh", "-c", "head -c " + ANSWER_BYTES + " /dev/zero"),
                        Map.of("PATH", "/usr/bin:/bin"),
                        null,
                        new byte[0],
                        Duration.ofMinutes(5));
                assertThat(r.ending()).isEqualTo(ProcessRunner.Ending.EXITED);
                assertThat(r.exitCode()).isZero();
                assertThat(r.heldOpen())
                        .as("run %d: the output's end was reached", i)
                        .isFalse();
                assertThat(r.stdout()).as("run %d: the whole answer", i).hasSize(ANSWER_BYTES);
            }
        }
    }
}

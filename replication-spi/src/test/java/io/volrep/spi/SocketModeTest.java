package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unix socket never exists with a mode that lets other users connect, not even for an instant, under the most
 * permissive umask (000): a plugin in a child JVM started by {@code sh -c 'umask 000; exec java ...'} binds while
 * this test polls the socket's directory in a tight loop and records the mode of every entry the first time it
 * sees it.
 */
class SocketModeTest {
    @TempDir
    Path dir;

    @Test
    void underUmask000TheSocketAppearsWithItsFinalModeAndNothingInItsDirectoryIsOpenToOthers() throws Exception {
        Path socket = dir.resolve("p.sock");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "umask 000 && exec \"$0\" -cp \"$1\" " + SocketServerMain.class.getName() + " \"$2\"";
        Process child = new ProcessBuilder(
                        "sh", "-c", command, java, System.getProperty("java.class.path"), "unix://" + socket)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                return new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                        .readLine();
            } catch (IOException e) {
                return e.toString();
            }
        });
        Map<String, Integer> firstSeenModes = new LinkedHashMap<>();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        try {
            while (!ready.isDone() && System.nanoTime() < deadline) {
                // The socket itself, as often as possible (one stat), and the directory (what else appears).
                record(socket, firstSeenModes);
                try (Stream<Path> entries = Files.list(dir)) {
                    for (Path entry : (Iterable<Path>) entries::iterator) {
                        record(entry, firstSeenModes);
                        record(socket, firstSeenModes);
                    }
                } catch (IOException raced) {
                    // an entry vanished while listing: the next round sees the directory again
                }
            }
            assertThat(ready.get(5, TimeUnit.MINUTES)).isEqualTo("listening on unix://" + socket);
            record(socket, firstSeenModes);
            assertThat(firstSeenModes).containsKey(socket.toString());
            assertThat(firstSeenModes.get(socket.toString()))
                    .as("the socket's mode the first time it was seen: %s", modes(firstSeenModes))
                    .isEqualTo(0140660);
            assertThat(firstSeenModes.values())
                    .as("no entry is ever open to other users: %s", modes(firstSeenModes))
                    .allMatch(mode -> (mode & 0007) == 0);
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(5, TimeUnit.MINUTES)) {
                child.destroyForcibly();
            }
        }
        assertThat(child.exitValue()).isZero();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left)
                    .as("the socket and its private directory are removed on close")
                    .isEmpty();
        }
    }

    private static void record(Path path, Map<String, Integer> modes) {
        if (modes.containsKey(path.toString())) {
            return;
        }
        try {
            modes.put(path.toString(), (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS));
        } catch (IOException notThere) {
            // not created yet, or already gone
        }
    }

    private static List<String> modes(Map<String, Integer> modes) {
        return modes.entrySet().stream()
                .map(e -> e.getKey() + "=" + Integer.toOctalString(e.getValue()))
                .toList();
    }
}

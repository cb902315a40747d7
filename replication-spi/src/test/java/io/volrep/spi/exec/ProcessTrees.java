package io.volrep.spi.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Helpers to see which of a driver's processes are still running. */
final class ProcessTrees {
    private ProcessTrees() {}

    /** The pids that still run. A zombie (killed, not yet reaped by whoever adopted it) does not count. */
    static List<Long> running(List<Long> pids) throws IOException {
        List<Long> alive = new ArrayList<>();
        for (long pid : pids) {
            Path stat = Path.of("/proc/" + pid + "/stat");
            if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) || !Files.exists(stat)) {
                continue;
            }
            try {
                String s = Files.readString(stat);
                char state = s.charAt(s.lastIndexOf(')') + 2);
                if (state != 'Z' && state != 'X') {
                    alive.add(pid);
                }
            } catch (IOException e) {
                // gone between the two checks
            }
        }
        return alive;
    }

    /** Polls until {@code pids} stop running, at most {@code millis}; returns those still running. */
    static List<Long> awaitGone(List<Long> pids, long millis) throws Exception {
        long end = System.currentTimeMillis() + millis;
        List<Long> alive = running(pids);
        while (!alive.isEmpty() && System.currentTimeMillis() < end) {
            Thread.sleep(50);
            alive = running(pids);
        }
        return alive;
    }

    static void awaitFile(Path file) throws Exception {
        long end = System.currentTimeMillis() + 300_000;
        while (!(Files.exists(file) && Files.size(file) > 0) && System.currentTimeMillis() < end) {
            Thread.sleep(20);
        }
    }

    static long readPid(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).trim());
    }

    static List<Long> readPids(Path file) throws IOException {
        return Files.readAllLines(file).stream()
                .filter(l -> !l.isBlank())
                .map(l -> Long.parseLong(l.trim()))
                .toList();
    }
}

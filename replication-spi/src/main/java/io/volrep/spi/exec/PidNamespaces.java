package io.volrep.spi.exec;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Containment of a driver's processes by a PID namespace per call, through util-linux's
 * {@code unshare --pid --fork --kill-child}: the driver becomes the init process of a new namespace, so that
 * when it exits or is killed the kernel kills every process left in it. No process can leave its PID
 * namespace, so neither {@code setsid} nor a double fork escapes; {@code --kill-child} kills the driver when
 * {@code unshare} itself is killed (on a timeout or at shutdown). Needs CAP_SYS_ADMIN (root, or a container
 * allowed to create namespaces); whether it works is found out once by running it.
 */
final class PidNamespaces {
    private static final List<String> OPTIONS = List.of("--pid", "--fork", "--kill-child");
    private static volatile Probe probe;

    /** What running the launcher once found: the launcher when it works, else why not. */
    record Probe(List<String> launcher, String failure) {
        boolean available() {
            return failure == null;
        }
    }

    private PidNamespaces() {}

    /** The launcher (unshare and its options) when PID namespaces work here, else why they do not. */
    static Probe probe() {
        Probe p = probe;
        if (p == null) {
            p = run();
            probe = p;
        }
        return p;
    }

    private static Probe run() {
        Optional<Path> unshare = find("unshare");
        if (unshare.isEmpty()) {
            return new Probe(List.of(), "unshare (util-linux) not found on the PATH");
        }
        List<String> launcher = new ArrayList<>();
        launcher.add(unshare.get().toString());
        launcher.addAll(OPTIONS);
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of("/bin/sh", "-c", "exit 0"));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Probe(List.of(), String.join(" ", command) + " did not finish within 10 s");
            }
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0) {
                return new Probe(
                        List.of(),
                        String.join(" ", command) + " failed with exit code " + p.exitValue()
                                + (output.isEmpty() ? "" : ": " + ExecProtocol.untrusted(output, 200)));
            }
            return new Probe(List.copyOf(launcher), null);
        } catch (IOException e) {
            return new Probe(List.of(), "cannot run " + unshare.get() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Probe(List.of(), "interrupted while trying " + unshare.get());
        }
    }

    private static Optional<Path> find(String program) {
        Set<String> dirs = new LinkedHashSet<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}

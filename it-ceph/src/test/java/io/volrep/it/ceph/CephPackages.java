package io.volrep.it.ceph;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Whether this machine can run the two-site Ceph lab ({@code lab/ceph-two-sites check}: the Ceph packages are
 * installed). Run by the build before the integration tests (exec-maven-plugin, pre-integration-test), so that README's
 * {@code ./mvnw -B verify} says in one line why the Ceph integration tests skip themselves; the tests ask
 * {@link #missing()} too.
 *
 * <pre>
 * args: REPOSITORY_ROOT skip=true|false
 * </pre>
 */
public final class CephPackages {
    private static volatile String missing;

    private CephPackages() {}

    public static void main(String[] args) throws Exception {
        if (args[1].equals("skip=true")) {
            return; // -DskipTests / -DskipITs: no IT runs
        }
        String why = check(Path.of(args[0]));
        if (why != null) {
            System.out.println(
                    "[WARNING] ceph: " + why + ": the Ceph integration tests (it-ceph Ceph*IT) will be SKIPPED");
        } else {
            System.out.println("[INFO] ceph: the Ceph packages are installed: the Ceph integration tests run against"
                    + " two real sites (lab/ceph-two-sites)");
        }
    }

    /** Why the lab cannot run here (the missing packages and their install command), or null when it can. */
    static String missing() {
        String m = missing;
        if (m == null) {
            try {
                m = String.valueOf(check(CephLab.repoRoot()));
            } catch (IOException e) {
                m = "cannot run lab/ceph-two-sites check: " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                m = "interrupted";
            }
            missing = m;
        }
        return m.equals("null") ? null : m;
    }

    private static String check(Path repo) throws IOException, InterruptedException {
        Path script = repo.resolve("lab/ceph-two-sites");
        if (!Files.isExecutable(script)) {
            return script + " is missing or not executable";
        }
        Process p = new ProcessBuilder(script.toString(), "check")
                .redirectErrorStream(true)
                .start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return "lab/ceph-two-sites check did not finish within 5 minutes";
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return p.exitValue() == 0 ? null : out.replaceFirst("^ceph-two-sites: ", "");
    }
}

package io.volrep.it.interop;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs the Node peers' packages ({@code npm ci} in {@code interop/}) before the interop ITs, so that
 * README's {@code ./mvnw -B verify} runs them on any machine with Node. Run by the build (exec-maven-plugin,
 * pre-integration-test); where node or npm is missing, or npm fails, it prints a WARNING saying why the ITs
 * will skip themselves and lets the build go on. {@code npm ci} runs again only when package-lock.json changed.
 *
 * <pre>
 * args: INTEROP_DIR offline=true|false skip=true|false
 * </pre>
 */
public final class InteropPeers {
    static final String STAMP = ".volrep-package-lock.sha256";

    private InteropPeers() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        boolean offline = args[1].equals("offline=true");
        if (args[2].equals("skip=true")) {
            return; // -DskipTests / -DskipITs: no IT runs, nothing to install
        }
        String why = install(dir, offline);
        if (why != null) {
            System.out.println(
                    "[WARNING] interop: " + why + ": the Node interop integration tests (it-interop"
                            + " *IT) will be SKIPPED. Install Node.js 18+ with npm, or run: cd interop && npm ci --ignore-scripts");
        }
    }

    /** Runs {@code npm ci} when needed; returns why the peers are not usable, or null when they are. */
    static String install(Path dir, boolean offline) throws IOException, InterruptedException {
        if (!onPath("node")) {
            return "node is not on the PATH";
        }
        String npm = System.getProperty("os.name").startsWith("Windows") ? "npm.cmd" : "npm";
        if (!onPath(npm)) {
            return "npm is not on the PATH";
        }
        String lockHash = sha256(dir.resolve("package-lock.json"));
        Path stamp = dir.resolve("node_modules").resolve(STAMP);
        if (Files.isRegularFile(stamp) && Files.readString(stamp).strip().equals(lockHash)) {
            System.out.println("[INFO] interop: node_modules matches package-lock.json (npm ci not needed)");
            return null;
        }
        // --ignore-scripts: the only install script in the tree is protobufjs's postinstall, which checks how its
        // dependents spell its version (none here does); npm 11 warns about every unapproved install script.
        List<String> command = new ArrayList<>(List.of(npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"));
        if (offline) {
            command.add("--offline"); // mvn -o: the npm cache only
        }
        System.out.println("[INFO] interop: " + String.join(" ", command) + " (in " + dir + ")");
        Process p =
                new ProcessBuilder(command).directory(dir.toFile()).inheritIO().start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return "npm ci did not finish within 10 minutes";
        }
        if (p.exitValue() != 0) {
            return "npm ci failed with exit status " + p.exitValue()
                    + (offline ? " (offline: is the npm cache warm?)" : "");
        }
        Files.writeString(stamp, lockHash + "\n");
        return null;
    }

    private static boolean onPath(String executable) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, executable))) {
                return true;
            }
        }
        return false;
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

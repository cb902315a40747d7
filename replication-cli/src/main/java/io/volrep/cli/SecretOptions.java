package io.volrep.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Option;

/**
 * {@code --secret K=V} and {@code --secrets-file PATH}, shared by every command that sends or requires secrets.
 * The file keeps secrets out of the process list ({@code /proc/PID/cmdline} is readable by every user), so the
 * docs recommend it. A file holds {@code KEY=VALUE} lines ({@code #} comments and blank lines ignored); a
 * directory holds one file per key, as Kubernetes mounts a Secret (hidden entries such as {@code ..data} skipped).
 *
 * <pre>
 * volrep promote --endpoint /csi/csi-addons.sock --volume pvc-1 --secrets-file /etc/volrep/secrets
 * volrep promote --endpoint /csi/csi-addons.sock --volume pvc-1 --secrets-file /var/run/secrets/replication
 * </pre>
 */
public final class SecretOptions {

    @Option(names = "--secret", paramLabel = "KEY=VALUE",
            description = "A secret; repeatable. Never printed, but VISIBLE TO OTHER USERS of this machine in the "
                    + "process list: prefer --secrets-file.")
    Map<String, String> inline = new LinkedHashMap<>();

    @Option(names = "--secrets-file", paramLabel = "PATH",
            description = "Secrets from a file of KEY=VALUE lines, or a directory with one file per key (a mounted "
                    + "Kubernetes Secret). --secret entries override keys of the same name.")
    Path file;

    /** The secrets: the file's (if any), then the {@code --secret} entries. */
    public Map<String, String> secrets() {
        Map<String, String> all = new LinkedHashMap<>();
        if (file != null) {
            all.putAll(read(file));
        }
        all.putAll(inline);
        return all;
    }

    /** True when neither option was given. */
    boolean isEmpty() {
        return file == null && inline.isEmpty();
    }

    /**
     * Reads a secrets file or directory. Errors name the file and line, never a value.
     *
     * @throws IllegalArgumentException when the path cannot be read or a line is not {@code KEY=VALUE}
     */
    static Map<String, String> read(Path path) {
        try {
            return Files.isDirectory(path) ? readDirectory(path) : readLines(path);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException("--secrets-file " + path + ": no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IllegalArgumentException("--secrets-file " + path + ": permission denied");
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException("--secrets-file " + path + ": cannot read it");
        }
    }

    private static Map<String, String> readLines(Path path) throws IOException {
        Map<String, String> secrets = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0 || line.substring(0, eq).isBlank()) {
                throw new IllegalArgumentException("--secrets-file " + path + ", line " + (i + 1)
                        + ": expected KEY=VALUE");
            }
            secrets.put(line.substring(0, eq).trim(), line.substring(eq + 1));
        }
        return secrets;
    }

    private static Map<String, String> readDirectory(Path dir) throws IOException {
        Map<String, String> secrets = new LinkedHashMap<>();
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : entries.sorted().toList()) {
                String key = entry.getFileName().toString();
                // Kubernetes' atomic-writer keeps ..data and ..<timestamp> next to the per-key symlinks
                if (!key.startsWith(".") && Files.isRegularFile(entry)) {
                    secrets.put(key, Files.readString(entry, StandardCharsets.UTF_8));
                }
            }
        }
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("--secrets-file " + dir + ": the directory holds no key file");
        }
        return secrets;
    }
}

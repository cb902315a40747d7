package io.volrep.cli;

import io.volrep.api.internal.SafeText;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --secret KEY=VALUE} and {@code --secrets-file PATH}, shared by every command that sends or requires secrets.
 * The file keeps secrets out of the process list ({@code /proc/PID/cmdline} is readable by every user), so the
 * docs recommend it. A file holds {@code KEY=VALUE} lines ({@code #} comments and blank lines ignored); a
 * directory holds one file per key, as Kubernetes mounts a Secret (hidden entries such as {@code ..data} skipped).
 * Every key of a directory must resolve, links followed, to a regular file inside it (Kubernetes' {@code key ->
 * ..data/key -> ..2026_.../key} does): a link out of it (to {@code /proc/self/environ}, say) is refused by name,
 * never read. A file its group or others can read gets a one-line warning on stderr naming it and its mode.
 *
 * <pre>
 * volrep promote --endpoint /csi/csi-addons.sock --volume pvc-1 --secrets-file /etc/volrep/secrets
 * volrep promote --endpoint /csi/csi-addons.sock --volume pvc-1 --secrets-file /var/run/secrets/replication
 * </pre>
 */
public final class SecretOptions {

    @Option(
            names = "--secret",
            paramLabel = "KEY=VALUE",
            description = "A secret; repeatable. Never printed, but VISIBLE TO OTHER USERS of this machine in the "
                    + "process list: prefer --secrets-file.")
    Map<String, String> inline = new LinkedHashMap<>();

    @Option(
            names = "--secrets-file",
            paramLabel = "PATH",
            description = "Secrets from a file of KEY=VALUE lines, or a directory with one file per key (a mounted "
                    + "Kubernetes Secret). --secret entries override keys of the same name.")
    Path file;

    /** The command this is mixed into: warnings go to its stderr. */
    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec mixee;

    /** The secrets: the file's (if any), then the {@code --secret} entries. */
    public Map<String, String> secrets() {
        Map<String, String> all = new LinkedHashMap<>();
        if (file != null) {
            all.putAll(read(file, warnings(mixee)));
        }
        all.putAll(inline);
        return all;
    }

    /** True when neither option was given. */
    boolean isEmpty() {
        return file == null && inline.isEmpty();
    }

    /** Where the warnings of a secrets file go: the command's stderr (System.err outside a command). */
    static Consumer<String> warnings(CommandLine.Model.CommandSpec command) {
        PrintWriter err = command == null || command.commandLine() == null
                ? new PrintWriter(System.err, true, Charset.defaultCharset())
                : command.commandLine().getErr();
        return line -> {
            err.println(line);
            err.flush();
        };
    }

    /**
     * Reads a secrets file or directory; each file that its group or others can read is named to {@code warnings}
     * (once read, so an unreadable file gets only its error). Errors name the file, line or entry, never a value.
     *
     * @throws IllegalArgumentException when the path cannot be read, a line is not {@code KEY=VALUE}, or an entry of a
     *                                  directory does not resolve to a regular file inside it
     */
    static Map<String, String> read(Path path, Consumer<String> warnings) {
        try {
            List<Path> read = new ArrayList<>();
            Map<String, String> secrets = Files.isDirectory(path) ? readDirectory(path, read) : readLines(path, read);
            for (Path file : read) {
                readableByOthers(file)
                        .ifPresent(mode -> warnings.accept("warning: --secrets-file " + file
                                + " is readable by its group or others (mode " + mode + "): make it 0600 (chmod go-rwx"
                                + (file.equals(path) ? "" : "; a Kubernetes Secret volume: defaultMode: 0400") + ")"));
            }
            return secrets;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--secrets-file " + path + ": no such file");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("--secrets-file " + path + ": permission denied");
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException("--secrets-file " + path + ": cannot read it");
        }
    }

    /** The file's mode as octal ({@code 0644}) when its group or others may read it; empty on a non-POSIX system. */
    private static Optional<String> readableByOthers(Path file) throws IOException {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException e) {
            return Optional.empty();
        }
        if (!permissions.contains(PosixFilePermission.GROUP_READ)
                && !permissions.contains(PosixFilePermission.OTHERS_READ)) {
            return Optional.empty();
        }
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 1 << (8 - p.ordinal()); // OWNER_READ (ordinal 0) is 0400 ... OTHERS_EXECUTE (8) is 0001
        }
        return Optional.of(String.format("%04o", mode));
    }

    private static Map<String, String> readLines(Path path, List<Path> read) throws IOException {
        Map<String, String> secrets = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        read.add(path);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0 || line.substring(0, eq).isBlank()) {
                throw new IllegalArgumentException(
                        "--secrets-file " + path + ", line " + (i + 1) + ": expected KEY=VALUE");
            }
            secrets.put(line.substring(0, eq).trim(), line.substring(eq + 1));
        }
        return secrets;
    }

    private static Map<String, String> readDirectory(Path dir, List<Path> read) throws IOException {
        Map<String, String> secrets = new LinkedHashMap<>();
        Path inside = dir.toRealPath();
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : entries.sorted().toList()) {
                String key = entry.getFileName().toString();
                // Kubernetes' atomic-writer keeps ..data and ..<timestamp> next to the per-key symlinks
                if (key.startsWith(".")) {
                    continue;
                }
                // Links followed, the key must be a regular file inside the directory: no way out through a link.
                Path target = entry.toRealPath();
                if (!target.startsWith(inside)) {
                    throw new IllegalArgumentException("--secrets-file " + dir + ": entry '" + SafeText.escape(key)
                            + "' resolves outside the directory; refused");
                }
                if (!Files.isRegularFile(target)) {
                    throw new IllegalArgumentException("--secrets-file " + dir + ": entry '" + SafeText.escape(key)
                            + "' is not a regular file; refused");
                }
                secrets.put(key, Files.readString(target, StandardCharsets.UTF_8));
                read.add(entry);
            }
        }
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("--secrets-file " + dir + ": the directory holds no key file");
        }
        return secrets;
    }
}

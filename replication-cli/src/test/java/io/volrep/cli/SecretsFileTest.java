package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.cli.CallCommandsTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --secrets-file DIR} reads only what lies inside DIR (a Kubernetes Secret's {@code ..data} link layout
 * included), and a secrets file that its group or others can read gets a one-line warning.
 */
class SecretsFileTest {
    static final String SECRET = "Sup3r-s3cret-value";

    @TempDir
    Path dir;

    private static Path owned(Path file) throws IOException {
        return Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    /** A Kubernetes-mounted Secret: {@code ..2026_11_26_..._123/key}, {@code ..data -> ..2026...}, {@code key -> ..data/key}. */
    private Path kubernetesSecret(String mode) throws IOException {
        Path mounted = Files.createDirectories(dir.resolve("mounted"));
        Path data = Files.createDirectories(mounted.resolve("..2026_11_26_08_00_00.123"));
        Path password = Files.writeString(data.resolve("password"), SECRET);
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString(mode));
        Files.createSymbolicLink(mounted.resolve("..data"), data.getFileName());
        Files.createSymbolicLink(mounted.resolve("password"), Path.of("..data/password"));
        return mounted;
    }

    private static List<String> warnings = new ArrayList<>();

    private static Map<String, String> read(Path path) {
        warnings = new ArrayList<>();
        return SecretOptions.read(path, warnings::add);
    }

    @Test
    void aKubernetesSecretDirectoryIsRead() throws IOException {
        Path mounted = kubernetesSecret("r--------");
        assertThat(read(mounted)).containsExactly(Map.entry("password", SECRET));
        assertThat(warnings).isEmpty();
    }

    @Test
    void anEntryLinkingOutsideTheDirectoryIsRefusedByName() throws IOException {
        Path mounted = kubernetesSecret("r--------");
        Files.createSymbolicLink(mounted.resolve("environ"), Path.of("/proc/self/environ"));
        assertThatThrownBy(() -> read(mounted))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--secrets-file " + mounted + ": entry 'environ' resolves outside the directory; refused");

        Path other = Files.createDirectories(dir.resolve("other"));
        Path outside = owned(Files.writeString(dir.resolve("outside"), "not-a-secret"));
        Files.createSymbolicLink(other.resolve("token"), Path.of("../outside"));
        assertThatThrownBy(() -> read(other))
                .hasMessage("--secrets-file " + other + ": entry 'token' resolves outside the directory; refused");
        assertThat(outside).exists();

        // A hidden link pointing outside is refused too when a key goes through it.
        Path sneaky = Files.createDirectories(dir.resolve("sneaky"));
        Files.createSymbolicLink(sneaky.resolve("..data"), dir);
        Files.createSymbolicLink(sneaky.resolve("outside"), Path.of("..data/outside"));
        assertThatThrownBy(() -> read(sneaky)).hasMessageContaining("entry 'outside' resolves outside the directory");

        Run run = volrep("conformance", "--secrets-file", mounted.toString(), "--list-checks");
        assertThat(run.exit()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).contains("entry 'environ' resolves outside the directory");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aSecretsFileOthersCanReadGetsAOneLineWarning() throws IOException {
        Path file = Files.writeString(dir.resolve("secrets"), "password=" + SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertThat(read(file)).containsExactly(Map.entry("password", SECRET));
        assertThat(warnings)
                .containsExactly("warning: --secrets-file " + file + " is readable by its group or"
                        + " others (mode 0640): make it 0600 (chmod go-rwx)");

        owned(file);
        read(file);
        assertThat(warnings).isEmpty();

        Path mounted = kubernetesSecret("rw-r--r--");
        read(mounted);
        assertThat(warnings)
                .containsExactly("warning: --secrets-file " + mounted.resolve("password") + " is readable"
                        + " by its group or others (mode 0644): make it 0600 (chmod go-rwx; a Kubernetes Secret volume:"
                        + " defaultMode: 0400)");

        // Every command that reads secrets says it on stderr, once per file, and goes on.
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Run conformance = volrep("conformance", "--secrets-file", file.toString(), "--list-checks");
        assertThat(conformance.exit()).as(conformance.all()).isZero();
        assertThat(conformance.err().lines())
                .containsExactly("warning: --secrets-file " + file + " is readable by its"
                        + " group or others (mode 0644): make it 0600 (chmod go-rwx)");
        Run info = volrep(
                "info",
                "--endpoint",
                "unix://" + dir.resolve("none.sock"),
                "--volume",
                "vol-0",
                "--secrets-file",
                file.toString(),
                "--fail-fast");
        assertThat(info.err()).contains("warning: --secrets-file " + file + " is readable by its group or others");
        assertThat(info.all()).doesNotContain(SECRET);
    }
}

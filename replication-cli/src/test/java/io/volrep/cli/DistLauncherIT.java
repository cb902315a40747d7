package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-download archive's launcher ({@code src/dist/volrep}, README.md "One download, no JDK") as a vendor
 * meets it: unpacked under a path with spaces, run through a chain of symbolic links (one of them relative), with
 * no PATH or an empty one, from a directory holding a hostile {@code readlink}. The installation is the archive's
 * layout with the build's JDK as its runtime and a class-data-sharing archive of volrep's classes made as the
 * archive's build makes it; {@code -Xshare:on} fails when that archive cannot be used. The archive itself is
 * checked the same way by {@code src/dist/build-dist.sh} ({@code -Pdist}).
 */
class DistLauncherIT {
    private static final Path LAUNCHER = Paths.get("src/dist/volrep").toAbsolutePath();
    private static final Path JAR = Paths.get("target/volrep.jar").toAbsolutePath();

    @TempDir
    static Path dir;

    /** The installation, under a path with spaces. */
    static Path home;

    /** A symbolic link to a relative symbolic link to {@code bin/volrep}, in another directory. */
    static Path link;

    /** A directory with an executable {@code readlink} that leaves {@link #marker} behind when it runs. */
    static Path hostileCwd;

    static Path marker;

    /** Whether {@code lib/volrep.jsa} could be made (the JDK needs its own base archive for it). */
    static boolean classDataSharing;

    @BeforeAll
    static void install() throws Exception {
        home = dir.resolve("Program Files/volrep 1.0");
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("lib"));
        Files.copy(LAUNCHER, home.resolve("bin/volrep"));
        Files.setPosixFilePermissions(home.resolve("bin/volrep"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.copy(JAR, home.resolve("lib/volrep.jar"));
        Files.createSymbolicLink(home.resolve("runtime"), Paths.get(System.getProperty("java.home")));

        // The class-data-sharing archive, made as build-dist.sh makes it but from an installation without spaces:
        // it records the class path /proc/self/fd/9/lib/volrep.jar, which is the same wherever volrep is unpacked.
        Path plain = dir.resolve("plain");
        Files.createDirectories(plain.resolve("bin"));
        Files.createDirectories(plain.resolve("lib"));
        Files.copy(LAUNCHER, plain.resolve("bin/volrep"));
        Files.setPosixFilePermissions(plain.resolve("bin/volrep"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(plain.resolve("lib/volrep.jar"), home.resolve("lib/volrep.jar"));
        Files.createSymbolicLink(plain.resolve("runtime"), Paths.get(System.getProperty("java.home")));
        Path jsa = plain.resolve("volrep.jsa");
        run(
                dir,
                Map.of("VOLREP_JAVA_OPTS", "-XX:ArchiveClassesAtExit=" + jsa),
                plain.resolve("bin/volrep"),
                "--version");
        classDataSharing = Files.isRegularFile(jsa);
        if (classDataSharing) {
            Files.move(jsa, home.resolve("lib/volrep.jsa"), StandardCopyOption.ATOMIC_MOVE);
        }

        // /usr/local/bin/volrep -> ../opt/volrep -> "Program Files/volrep 1.0/bin/volrep", as a vendor links it.
        Path opt = Files.createDirectories(dir.resolve("opt"));
        Files.createSymbolicLink(
                opt.resolve("volrep"), Paths.get("..", "Program Files", "volrep 1.0", "bin", "volrep"));
        Path bin = Files.createDirectories(dir.resolve("links dir"));
        link = Files.createSymbolicLink(bin.resolve("volrep"), opt.resolve("volrep"));

        hostileCwd = Files.createDirectories(dir.resolve("cwd"));
        marker = dir.resolve("readlink-ran");
        Path readlink = hostileCwd.resolve("readlink");
        Files.writeString(readlink, "#!/bin/sh\necho ran > '" + marker + "'\necho /nonexistent\n");
        Files.setPosixFilePermissions(readlink, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void runsUnderAPathWithSpacesThroughSymlinksWithoutPath() throws Exception {
        Result r = run(hostileCwd, Map.of("VOLREP_JAVA_OPTS", sharing()), link, "--version");

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("volrep ").doesNotContain("Could not find or load main class");
        assertThat(marker).as("the current directory's readlink ran").doesNotExist();
    }

    @Test
    void anEmptyPathNeverRunsTheCurrentDirectorysReadlink() throws Exception {
        // An empty PATH names the current directory to sh: a readlink there must not run.
        Result r = run(hostileCwd, Map.of("PATH", "", "VOLREP_JAVA_OPTS", sharing()), link, "--version");

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("volrep ");
        assertThat(marker).as("the current directory's readlink ran").doesNotExist();
    }

    @Test
    void aRelativePathEntryIsNotSearchedEither() throws Exception {
        Result r = run(hostileCwd, Map.of("PATH", ".:/usr/bin:/bin", "VOLREP_JAVA_OPTS", sharing()), link, "--version");

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(marker).as("the current directory's readlink ran").doesNotExist();
    }

    /** {@code -Xshare:on} where lib/volrep.jsa exists: the JVM fails when it cannot use it. */
    private static String sharing() {
        assumeTrue(classDataSharing, "this JDK cannot make a class-data-sharing archive");
        return "-Xshare:on";
    }

    record Result(int exit, String output) {}

    /** Runs {@code command} with exactly {@code environment} (nothing inherited) in {@code cwd}. */
    static Result run(Path cwd, Map<String, String> environment, Path command, String... args)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add(command.toString());
        argv.addAll(List.of(args));
        Path output = Files.createTempFile(dir, "output", ".txt");
        ProcessBuilder pb = new ProcessBuilder(argv)
                .directory(cwd.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(environment);
        Process p = pb.start();
        // Bounded generously: a loaded machine starts a JVM slowly, but a launcher that hangs must fail the test.
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("bin/volrep did not end within 5 minutes: " + Files.readString(output));
        }
        return new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}

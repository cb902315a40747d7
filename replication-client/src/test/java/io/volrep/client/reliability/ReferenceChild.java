package io.volrep.client.reliability;

import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.jar.Attributes.Name;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The reference plugin as a separate process, for {@link FaultTest}: serves a {@link ReferenceDriver} with
 * {@code VOLUMES} volumes on {@code unix://SOCKET} and appends one line per call the driver completed to
 * {@code OPLOG} (the call's {@value #OP_PARAMETER} parameter, the RPC and the source) before the answer is sent.
 * Each line is written with one {@code write(2)}, so it survives a SIGKILL of this process. Prints
 * {@code listening on <address>} when ready, then serves until killed.
 *
 * <pre>{@code
 * java -cp <test class path> io.volrep.client.reliability.ReferenceChild /tmp/x/ref.sock /tmp/x/ops-1.log 200
 * }</pre>
 */
public final class ReferenceChild {
    /** The request parameter that names an operation, so the log can be matched to the client's successes. */
    static final String OP_PARAMETER = "op";

    private ReferenceChild() {}

    /**
     * Starts the reference plugin in a child JVM on {@code socket}, its completed operations appended to
     * {@code opLog} (created), its stderr to {@code errFile}; returns once the child says it listens.
     */
    static Process start(Path socket, Path opLog, int volumes, Path errFile) throws IOException {
        Files.createFile(opLog);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(
                        java,
                        "-cp",
                        testClassPath(),
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dorg.slf4j.simpleLogger.log.io.volrep=warn",
                        ReferenceChild.class.getName(),
                        socket.toString(),
                        opLog.toString(),
                        Integer.toString(volumes))
                .redirectError(errFile.toFile());
        Process process = builder.start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try {
                        ready.complete(out.readLine());
                        // Keep draining, so the child never blocks on a full pipe.
                        while (out.readLine() != null) {
                            Thread.onSpinWait();
                        }
                    } catch (IOException e) {
                        ready.complete(null);
                    }
                },
                "child-stdout");
        reader.setDaemon(true);
        reader.start();
        String line;
        try {
            line = ready.get(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            line = null;
        } catch (ExecutionException | TimeoutException e) {
            line = null;
        }
        // A stale socket file is left by a killed incarnation: only the child's own word says it is ready.
        if (line == null || !line.startsWith("listening on")) {
            process.destroyForcibly();
            throw new IllegalStateException("child not ready within 30 s; its stderr: " + readQuietly(errFile));
        }
        return process;
    }

    public static void main(String[] args) throws Exception {
        String socket = args[0];
        String opLog = args[1];
        int volumes = Integer.parseInt(args[2]);
        ReferenceDriver reference = ReferenceDriver.builder().volumes(volumes).build();
        try (FileOutputStream log = new FileOutputStream(opLog, true)) {
            ReplicationServer server = ReplicationServer.builder()
                    .driver(new Recording(reference, log))
                    .listen("unix://" + socket)
                    .gracePeriod(ReferencePlugin.DEFAULT_GRACE_PERIOD)
                    .build()
                    .start();
            System.out.println("listening on " + server.address());
            System.out.flush();
            server.awaitTermination();
        }
    }

    /** Delegates to the reference and records each completed call. */
    private static final class Recording implements ReplicationDriver {
        private final ReferenceDriver delegate;
        private final FileOutputStream log;

        Recording(ReferenceDriver delegate, FileOutputStream log) {
            this.delegate = delegate;
            this.log = log;
        }

        @Override
        public void enable(EnableRequest request) {
            delegate.enable(request);
            record("enable", request.source(), request.parameters());
        }

        @Override
        public void disable(DisableRequest request) {
            delegate.disable(request);
            record("disable", request.source(), request.parameters());
        }

        @Override
        public void promote(PromoteRequest request) {
            delegate.promote(request);
            record("promote", request.source(), request.parameters());
        }

        @Override
        public void demote(DemoteRequest request) {
            delegate.demote(request);
            record("demote", request.source(), request.parameters());
        }

        @Override
        public ResyncResult resync(ResyncRequest request) {
            ResyncResult result = delegate.resync(request);
            record("resync", request.source(), request.parameters());
            return result;
        }

        @Override
        public ReplicationInfo info(InfoRequest request) {
            return delegate.info(request);
        }

        @Override
        public Set<ReplicationSource.Kind> supportedSourceKinds() {
            return delegate.supportedSourceKinds();
        }

        private void record(String rpc, ReplicationSource source, Map<String, String> parameters) {
            byte[] line = (parameters.getOrDefault(OP_PARAMETER, "-") + " " + rpc + " " + source.id() + "\n")
                    .getBytes(StandardCharsets.UTF_8);
            try {
                synchronized (log) {
                    log.write(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * This JVM's class path for a child JVM. Surefire starts tests from a manifest-only jar whose
     * {@code Class-Path} holds the real entries (as URIs relative to the jar): expand it.
     */
    public static String testClassPath() throws IOException {
        String classPath = System.getProperty("java.class.path");
        String[] entries = classPath.split(File.pathSeparator);
        if (entries.length != 1 || !entries[0].endsWith(".jar")) {
            return classPath;
        }
        Path jar = Path.of(entries[0]).toAbsolutePath();
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String manifestPath =
                    manifest == null ? null : manifest.getMainAttributes().getValue(Name.CLASS_PATH);
            if (manifestPath == null || manifestPath.isBlank()) {
                return classPath;
            }
            List<String> expanded = new ArrayList<>();
            expanded.add(jar.toString());
            for (String uri : manifestPath.trim().split("\\s+")) {
                expanded.add(Path.of(jar.getParent().toUri().resolve(uri)).toString());
            }
            return String.join(File.pathSeparator, expanded);
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable)";
        }
    }
}

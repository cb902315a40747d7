package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.testsupport.GrpcCleanup;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed between binding in its private staging directory and linking the socket into place leaves
 * {@code .volrep-*} behind. The next server on that directory removes such leftovers once they are old enough
 * that no server can still be starting in them, and only when they hold nothing but a dead socket.
 */
class StagingLeftoverTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    /** A staging directory as a crashed server leaves it: mode 0700, a socket "s" nobody listens on. */
    private Path leftover(String name, Instant modified) throws Exception {
        Path staging = Files.createDirectory(
                dir.resolve(name), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(staging.resolve("s")));
        }
        Files.setLastModifiedTime(staging, FileTime.from(modified));
        return staging;
    }

    @Test
    void oldLeftoversWithADeadSocketAreRemovedRecentOnesAndForeignContentStay() throws Exception {
        Instant old = Instant.now().minus(Duration.ofMinutes(10));
        Path crashed = leftover(".volrep-crashed1", old);
        Path starting = leftover(".volrep-starting", Instant.now()); // perhaps a server starting right now
        Path foreign = leftover(".volrep-foreign1", old);
        Files.writeString(foreign.resolve("notes.txt"), "not ours");
        Path live = Files.createDirectory(dir.resolve(".volrep-live0001"));
        try (ServerSocketChannel listening = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listening.bind(UnixDomainSocketAddress.of(live.resolve("s")));
            Files.setLastModifiedTime(live, FileTime.from(old));

            UnixSocketFile socket = new UnixSocketFile(dir.resolve("csi-addons.sock"));
            socket.prepare();

            assertThat(crashed).doesNotExist();
            assertThat(starting).exists();
            assertThat(foreign).exists();
            assertThat(live).as("a socket someone answers on is never removed").exists();
            socket.delete();
        }
    }

    @Test
    void aServerStartsAndServesAfterRemovingALeftover() throws Exception {
        Path crashed = leftover(".volrep-crashed2", Instant.now().minus(Duration.ofMinutes(5)));
        Path sock = dir.resolve("plugin.sock");
        grpc.register(ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("unix://" + sock)
                .build()
                .start());
        assertThat(crashed).doesNotExist();
        assertThat(sock).exists();
        try (var entries = Files.list(dir)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .as("only the socket is left in the directory once the server is up")
                    .containsExactly("plugin.sock");
        }
    }
}

package io.volrep.spi;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life cycle of a server's unix socket file: a stale file left by a crashed plugin is removed, a socket a
 * live server answers on (or anything that is not a socket) is refused, and the socket appears at its path with
 * its final mode 0660 from the first instant, whatever the process's umask.
 *
 * <p>Why not bind and then chmod: between the two, a socket created under a permissive umask (0777 under umask
 * 000) lets any local user connect. Instead the server binds inside a private directory (mode 0700, created next
 * to the target so that both are on one file system), the socket is chmod-ed there, where nobody else can reach
 * it, and then linked into place atomically ({@code link(2)}, which, unlike {@code rename(2)}, never replaces a
 * socket another server created meanwhile). The private directory is removed right after.
 *
 * <p>A server killed between bind and link leaves its private directory behind; the next server preparing a
 * socket in the same directory removes such leftovers when they are its user's, older than
 * {@link #LEFTOVER_AGE} (so that no server can still be starting in them) and hold nothing but a socket nobody
 * answers on.
 */
final class UnixSocketFile {
    private static final Logger LOG = LoggerFactory.getLogger(UnixSocketFile.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String STAGING_PREFIX = ".volrep-";
    /** The staged socket's name inside its staging directory; short, as the whole path must fit in sun_path. */
    private static final String STAGED_SOCKET = "s";
    /** How old a staging directory must be before it counts as a crashed server's leftover. */
    static final Duration LEFTOVER_AGE = Duration.ofMinutes(1);

    private final Path path;
    private final Path stagingDirectory;
    private final Path stagedSocket;
    /** True once this server put its socket at {@link #path}: only then may it delete it. */
    private volatile boolean owned;

    UnixSocketFile(Path path) {
        this.path = path;
        Path parent = path.getParent() == null ? Path.of("/") : path.getParent();
        // Short on purpose: sun_path holds 107 bytes, and the staged path is what the server binds.
        this.stagingDirectory = parent.resolve(STAGING_PREFIX + Long.toString(RANDOM.nextLong() >>> 1, 36));
        this.stagedSocket = stagingDirectory.resolve(STAGED_SOCKET);
        if (stagedSocket.toString().getBytes(StandardCharsets.UTF_8).length > ListenAddress.MAX_UNIX_PATH_BYTES) {
            throw new IllegalArgumentException("invalid listen address \"unix://" + path + "\": the socket's directory "
                    + "path is too long to bind in (at most " + (ListenAddress.MAX_UNIX_PATH_BYTES - 23) + " bytes)");
        }
    }

    /** Where the server binds: inside the private directory {@link #prepare} creates. */
    Path bindPath() {
        return stagedSocket;
    }

    /**
     * Before the server binds: refuses a live socket or a non-socket at the path, removes a stale socket, and
     * creates the private directory (mode 0700) to bind in.
     */
    void prepare() throws IOException {
        Path parent = stagingDirectory.getParent();
        Files.createDirectories(parent);
        refuseOrRemoveExisting();
        removeLeftovers(parent);
        Files.createDirectory(
                stagingDirectory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** After the server has bound: gives the socket its final mode, then links it into place. */
    void publish() throws IOException {
        Files.setPosixFilePermissions(stagedSocket, PosixFilePermissions.fromString("rw-rw----"));
        try {
            Files.createLink(path, stagedSocket);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("cannot listen on unix://" + path
                    + ": another server created the socket while this one was starting (stop it first)");
        }
        owned = true;
        removeStaging();
    }

    /** Removes what this server created: the socket at the path (only if it put it there) and the private directory. */
    void delete() {
        try {
            removeStaging();
            if (owned) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.warn("could not delete the socket file {}: {}", path, e.toString());
        }
    }

    private void removeStaging() throws IOException {
        Files.deleteIfExists(stagedSocket);
        Files.deleteIfExists(stagingDirectory);
    }

    /**
     * Removes a stale socket file (nobody answers on it) and refuses a live one or anything that is not a
     * socket: removing a regular file by mistake would be worse than failing to start.
     */
    private void refuseOrRemoveExisting() throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!isSocket(path)) {
            throw new IllegalStateException(
                    "cannot listen on unix://" + path + ": the path exists and is not a socket");
        }
        if (answers(path)) {
            throw new IllegalStateException(
                    "cannot listen on unix://" + path + ": another server is listening on it (stop it first)");
        }
        LOG.info("removing the stale socket file {}", path);
        Files.delete(path);
    }

    /** Removes the staging directories crashed servers left in {@code parent} (see the class comment). */
    private static void removeLeftovers(Path parent) {
        Instant before = Instant.now().minus(LEFTOVER_AGE);
        try (DirectoryStream<Path> candidates = Files.newDirectoryStream(parent, STAGING_PREFIX + "*")) {
            UserPrincipal me = parent.getFileSystem()
                    .getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name"));
            for (Path staging : candidates) {
                if (isLeftover(staging, me, before)) {
                    Files.deleteIfExists(staging.resolve(STAGED_SOCKET));
                    Files.delete(staging);
                    LOG.info("removed {}, left behind by a server that stopped while starting", staging);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Tidying only: a leftover that cannot be judged or removed stays, and the server starts anyway.
            LOG.debug("could not remove leftover staging directories in {}: {}", parent, e.toString());
        }
    }

    private static boolean isLeftover(Path staging, UserPrincipal me, Instant before) throws IOException {
        BasicFileAttributes attributes =
                Files.readAttributes(staging, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory()
                || attributes.lastModifiedTime().toInstant().isAfter(before)
                || !me.equals(Files.getOwner(staging, LinkOption.NOFOLLOW_LINKS))) {
            return false;
        }
        try (Stream<Path> entries = Files.list(staging)) {
            if (!entries.allMatch(e -> e.getFileName().toString().equals(STAGED_SOCKET))) {
                return false;
            }
        }
        Path socket = staging.resolve(STAGED_SOCKET);
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        if (!isSocket(socket)) {
            return false;
        }
        return !answers(socket); // someone answers: not a leftover
    }

    /** Whether a server answers on the unix socket at {@code socket} (false: nobody listens, a stale file). */
    private static boolean answers(Path socket) throws IOException {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (ConnectException dead) {
            return false;
        }
    }

    private static boolean isSocket(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
        }
    }
}

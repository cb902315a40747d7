package io.volrep.client;

import io.volrep.api.internal.UnixTargets;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Optional;

/**
 * Why nothing answers at a target, found by looking rather than read from gRPC's text: the socket file's
 * attributes and access rights, then a connection of our own (refused, unknown host, timed out). What
 * {@link ReplicationClient#whyUnreachable(String)}, the connection warnings and the exception of a call that never
 * reached its plugin say.
 */
final class Reachability {
    /** How long a TCP target gets to accept the probe's connection. */
    static final Duration TCP_TIMEOUT = Duration.ofSeconds(2);

    private Reachability() {}

    /**
     * The reason, e.g. {@code no such socket file /csi/csi-addons.sock}; empty when a connection can be made (the
     * plugin is there) or the target's form cannot be checked ({@code inprocess:}, a name resolver other than
     * {@code dns:///host:port}).
     */
    static Optional<String> whyUnreachable(String target) {
        if (target.startsWith("unix:")) {
            Path path;
            try {
                path = UnixTargets.socketPath(target, IllegalArgumentException::new);
            } catch (IllegalArgumentException e) {
                return Optional.of("unusable unix target: " + e.getMessage());
            }
            return unix(path);
        }
        String hostPort = target.startsWith("dns:///") ? target.substring("dns:///".length()) : target;
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0 || hostPort.contains("/") || target.startsWith("inprocess:")) {
            return Optional.empty();
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return tcp(hostPort.substring(0, colon).replace("[", "").replace("]", ""), port, hostPort);
    }

    private static Optional<String> unix(Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            Path parent = path.getParent();
            return Optional.of(
                    parent == null || Files.isDirectory(parent)
                            ? "no such socket file " + path
                            : "no such directory " + parent);
        } catch (AccessDeniedException e) {
            return Optional.of("permission denied on " + path + " (its directory cannot be searched)");
        } catch (IOException e) {
            return Optional.of(e + " on " + path);
        }
        if (attributes.isRegularFile() || attributes.isDirectory()) {
            return Optional.of(path + " is not a socket");
        }
        if (!Files.isWritable(path)) {
            // connect(2) on a unix socket needs write permission on its file.
            return Optional.of("permission denied on " + path);
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            return Optional.empty();
        } catch (ConnectException e) {
            return Optional.of(refused(path.toString()));
        } catch (IOException e) {
            return Optional.of(e.getMessage() + " on " + path);
        }
    }

    private static Optional<String> tcp(String host, int port, String where) {
        try (Socket socket = new Socket()) {
            socket.connect(
                    new InetSocketAddress(host.isEmpty() ? "localhost" : host, port), (int) TCP_TIMEOUT.toMillis());
            return Optional.empty();
        } catch (UnknownHostException e) {
            return Optional.of("unknown host " + host);
        } catch (SocketTimeoutException e) {
            return Optional.of("no answer from " + where + " within " + TCP_TIMEOUT.toSeconds() + " s");
        } catch (ConnectException e) {
            return Optional.of(refused(where));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of(e.getMessage() + " on " + where);
        }
    }

    private static String refused(String where) {
        return "connection refused on " + where + " (nobody listens there: is the plugin running?)";
    }
}

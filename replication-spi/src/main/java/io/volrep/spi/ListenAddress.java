package io.volrep.spi;

import io.volrep.api.internal.UnixTargets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a {@link ReplicationServer} listens: {@code unix:///abs/path} (or {@code unix:path}),
 * {@code host:port} (or {@code tcp://host:port}, {@code [::1]:port}, {@code :port} for every interface) or
 * {@code inprocess:NAME}.
 */
sealed interface ListenAddress {
    /** Linux's limit for {@code sun_path}, including the terminating NUL. */
    int MAX_UNIX_PATH_BYTES = 107;

    record Unix(Path path) implements ListenAddress {
        @Override
        public String toString() {
            return "unix://" + path;
        }
    }

    record Tcp(String host, int port) implements ListenAddress {
        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    record InProcess(String name) implements ListenAddress {
        @Override
        public String toString() {
            return "inprocess:" + name;
        }
    }

    static ListenAddress parse(String uri) {
        Objects.requireNonNull(uri, "listen address");
        if (uri.startsWith("unix:")) {
            Path path = UnixTargets.socketPath(uri, why -> invalid(uri, why));
            if (path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_UNIX_PATH_BYTES) {
                throw invalid(uri, "unix socket paths are limited to " + MAX_UNIX_PATH_BYTES + " bytes");
            }
            return new Unix(path);
        }
        if (uri.startsWith("inprocess:")) {
            String name = uri.substring("inprocess:".length());
            if (name.isEmpty()) {
                throw invalid(uri, "missing in-process name");
            }
            return new InProcess(name);
        }
        String hostPort = uri.startsWith("tcp://") ? uri.substring("tcp://".length()) : uri;
        if (hostPort.contains("/")) {
            throw invalid(uri, "expected unix:///path, host:port or inprocess:NAME");
        }
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw invalid(uri, "expected unix:///path, host:port or inprocess:NAME");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            host = "0.0.0.0";
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw invalid(uri, "the port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw invalid(uri, "the port must be 0..65535");
        }
        return new Tcp(host, port);
    }

    private static IllegalArgumentException invalid(String uri, String why) {
        return new IllegalArgumentException("invalid listen address \"" + uri + "\": " + why);
    }
}

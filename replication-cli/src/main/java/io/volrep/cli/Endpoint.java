package io.volrep.cli;

import io.volrep.api.internal.UnixTargets;
import io.volrep.client.ReplicationClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;
import picocli.CommandLine;

/**
 * The endpoint and listen forms the CLI accepts, checked when the command line is parsed so that a form that
 * cannot work is one line and exit 2, never a stack trace or a failed conformance check. A plain absolute path
 * is a unix socket, as the Go CSI tooling reads {@code --csi-address /csi/csi-addons.sock}.
 *
 * <pre>
 * volrep info --endpoint /csi/csi-addons.sock --volume pvc-1        # = unix:///csi/csi-addons.sock
 * </pre>
 */
final class Endpoint {
    static final String FORMS = "unix:///path, /path, host:port or dns:///host:port";
    static final String LISTEN_FORMS = "unix:///path, /path, host:port or tcp://host:port";

    private Endpoint() {}

    /** A client target gRPC can dial, or {@link IllegalArgumentException} saying what is wrong. */
    static String target(String value) {
        String v = value.trim();
        if (v.startsWith("/")) {
            return "unix://" + v;
        }
        if (v.startsWith("unix:")) {
            unixPath(v);
            return v;
        }
        if (v.startsWith("dns:") || v.startsWith("inprocess:")) {
            if (v.endsWith(":") || v.equals("dns:///")) {
                throw invalid(value, "the name is missing");
            }
            return v;
        }
        checkHostPort(value, v);
        return v;
    }

    /** A listen address the server accepts; a unix socket's directory must exist (none is created). */
    static String listen(String value) {
        String v = value.trim();
        if (v.startsWith("/")) {
            v = "unix://" + v;
        }
        if (v.startsWith("unix:")) {
            Path dir = unixPath(v).getParent();
            if (dir != null && !Files.isDirectory(dir)) {
                throw invalid(
                        value,
                        Files.exists(dir)
                                ? dir + " is not a directory"
                                : "the directory " + dir + " does not exist (volrep creates none; create it first)");
            }
            return v;
        }
        if (v.startsWith("inprocess:")) {
            return v;
        }
        checkHostPort(value, v.startsWith("tcp://") ? v.substring("tcp://".length()) : v);
        return v;
    }

    /** The socket path of a {@code unix:} endpoint. */
    static Path unixPath(String unixEndpoint) {
        return UnixTargets.socketPath(unixEndpoint, why -> invalid(unixEndpoint, why));
    }

    private static void checkHostPort(String value, String hostPort) {
        int scheme = hostPort.indexOf("://");
        if (scheme > 0) {
            throw invalid(value, "unknown scheme \"" + hostPort.substring(0, scheme) + "\"");
        }
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0 || hostPort.contains("/")) {
            throw invalid(value, "neither a socket path nor host:port (a relative path? write it absolute)");
        }
        String port = hostPort.substring(colon + 1);
        if (!port.chars().allMatch(Character::isDigit) || port.isEmpty() || Integer.parseInt(port) > 65535) {
            throw invalid(value, "the port must be a number 0..65535");
        }
    }

    private static IllegalArgumentException invalid(String value, String why) {
        return new IllegalArgumentException("unusable endpoint \"" + value + "\": " + why);
    }

    /**
     * Why nothing answers at {@code target}, found by looking: no such socket file, not a socket, permission
     * denied, connection refused, unknown host. Empty when a connection can be made (the plugin is there, the
     * failure was its answer) or the form cannot be checked ({@code inprocess:}). The client library's look, which
     * its connection warnings and exceptions use too.
     */
    static Optional<String> whyUnreachable(String target) {
        return ReplicationClient.whyUnreachable(target);
    }

    private static String convert(String value, UnaryOperator<String> parse, String forms) {
        try {
            return parse.apply(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage() + " (use " + forms + ")");
        }
    }

    /** {@code --endpoint}: every client target form, a plain absolute path being a unix socket. */
    static final class TargetConverter implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return Endpoint.convert(value, Endpoint::target, FORMS);
        }
    }

    /** {@code --listen}: a server address, a plain absolute path being a unix socket in an existing directory. */
    static final class ListenConverter implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return Endpoint.convert(value, Endpoint::listen, LISTEN_FORMS);
        }
    }
}

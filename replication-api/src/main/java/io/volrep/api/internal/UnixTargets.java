package io.volrep.api.internal;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * How volrep reads a {@code unix:} address, the same for the client's target, the server's listen address and the
 * CLI: {@code unix:///abs/path} (gRPC's form) or {@code unix:path} (relative to the working directory).
 *
 * <pre>{@code
 * Path socket = UnixTargets.socketPath("unix:///csi/csi-addons.sock", IllegalArgumentException::new);
 * // /csi/csi-addons.sock
 * }</pre>
 */
public final class UnixTargets {
    private UnixTargets() {}

    /**
     * The absolute, normalized socket path of a {@code unix:} address.
     *
     * @param address an address starting with {@code unix:}
     * @param invalid makes the exception to throw from the reason the address is unusable (the caller adds the
     *                address and its own wording)
     * @throws IllegalArgumentException when {@code address} does not start with {@code unix:}
     */
    public static Path socketPath(String address, Function<String, ? extends RuntimeException> invalid) {
        Objects.requireNonNull(address, "address");
        if (!address.startsWith("unix:")) {
            throw new IllegalArgumentException("not a unix: address: " + address);
        }
        String rest = address.substring("unix:".length());
        if (rest.startsWith("//")) {
            rest = rest.substring(2);
            if (!rest.startsWith("/")) {
                throw invalid.apply("unix:// must be followed by an absolute path (unix:///path)");
            }
        }
        if (rest.isEmpty()) {
            throw invalid.apply("the socket path is missing");
        }
        return Path.of(rest).toAbsolutePath().normalize();
    }
}

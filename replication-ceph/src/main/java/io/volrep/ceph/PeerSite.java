package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.volrep.api.ReplicationException;
import io.volrep.api.Secrets;
import io.volrep.api.UnknownErrorException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The peer site of the pool, asked directly: the role of an image there, which the local mirror status only knows
 * from a report that can be seconds old. The peer is reached with the credentials that
 * {@code rbd mirror pool peer bootstrap import} stored in the local cluster for rbd-mirror ({@code rbd mirror pool
 * info --all}: the peer's mon addresses, its {@code client.rbd-mirror-peer} user and key), so the plugin needs no
 * configuration of the peer. The key goes to a file only this process can read (mode 0600 in a 0700 directory),
 * named on rbd's command line by path; it never reaches a log, a message or another process's view.
 *
 * <pre>{@code
 * PeerSite peer = PeerSite.discover(local, "rbd", budget, keyFile).orElseThrow();
 * PeerSite.Role role = peer.role("vol-0", budget);      // PRIMARY, NON_PRIMARY, ABSENT, NOT_MIRRORED, UNREACHABLE
 * }</pre>
 */
final class PeerSite {
    /** The longest a side question to the peer may take: it is asked only on a refusal, within the RPC's budget. */
    static final Duration QUESTION_TIME = Duration.ofSeconds(8);

    /** The image's role at the peer. */
    enum Role {
        PRIMARY,
        NON_PRIMARY,
        NOT_MIRRORED,
        ABSENT,
        UNREACHABLE
    }

    /**
     * What the peer said about an image.
     *
     * @param role its role there
     * @param image what {@code rbd info} said, when the image exists there
     * @param why why the peer could not be asked ({@link Role#UNREACHABLE}), else ""
     */
    record Answer(Role role, Optional<RbdImage> image, String why) {}

    private final String name;
    private final String pool;
    private final RbdCli cli;

    private PeerSite(String name, String pool, RbdCli cli) {
        this.name = name;
        this.pool = pool;
        this.cli = cli;
    }

    /** The peer's site name, e.g. {@code site-b}. */
    String name() {
        return name;
    }

    /**
     * The pool's first peer with stored credentials, or empty when the pool has no peer or its credentials are not
     * readable (a peer added with a configuration file instead of bootstrap, or a user without
     * {@code config-key} access).
     *
     * @param keyFile where to keep the peer's key (created with mode 0600)
     */
    static Optional<PeerSite> discover(RbdCli local, String pool, CallBudget budget, Path keyFile) {
        JsonElement info;
        try {
            info = local.json(budget, "mirror", "pool", "info", pool, "--all");
        } catch (UnknownErrorException e) {
            // the output holds the peer's key: no excerpt of it in the message
            throw new UnknownErrorException(
                    local.site() + ": rbd mirror pool info " + pool + " --all printed" + " malformed JSON");
        }
        if (!info.isJsonObject() || !info.getAsJsonObject().has("peers")) {
            return Optional.empty();
        }
        for (JsonElement p : info.getAsJsonObject().getAsJsonArray("peers")) {
            JsonObject peer = p.getAsJsonObject();
            if (!peer.has("key") || !peer.has("mon_host") || !peer.has("client_name")) {
                continue;
            }
            String client = peer.get("client_name").getAsString();
            String id = client.startsWith("client.") ? client.substring("client.".length()) : client;
            String key = peer.get("key").getAsString();
            writeKey(keyFile, key);
            String site = peer.has("site_name") ? peer.get("site_name").getAsString() : "the peer site";
            return Optional.of(new PeerSite(
                    site,
                    pool,
                    local.withConnection(
                            "site " + site,
                            List.of(
                                    "-c",
                                    "/dev/null",
                                    "-m",
                                    peer.get("mon_host").getAsString(),
                                    "--id",
                                    id,
                                    "--keyfile",
                                    keyFile.toString()),
                            Secrets.of(Map.of("key", key)))));
        }
        return Optional.empty();
    }

    /** The image's role at the peer, asked within at most {@link #QUESTION_TIME} of the budget. */
    Answer role(String image, CallBudget budget) {
        CallBudget question = budget.capped(QUESTION_TIME);
        try {
            RbdImage there = RbdImage.parse(image, cli.json(question, "info", pool + "/" + image));
            Role role = !there.enabled() ? Role.NOT_MIRRORED : there.primary() ? Role.PRIMARY : Role.NON_PRIMARY;
            return new Answer(role, Optional.of(there), "");
        } catch (RbdException e) {
            if (e.errno() == RbdException.ENOENT) {
                return new Answer(Role.ABSENT, Optional.empty(), "");
            }
            return new Answer(Role.UNREACHABLE, Optional.empty(), e.getMessage());
        } catch (ReplicationException e) {
            // UNAVAILABLE: no answer within the question's time
            return new Answer(Role.UNREACHABLE, Optional.empty(), e.getMessage());
        }
    }

    /**
     * The peer's mirror snapshots of {@code image}, asked within at most {@link #QUESTION_TIME}; empty when the peer
     * has no such image or does not answer.
     */
    Optional<MirrorSnapshots> snapshots(String image, CallBudget budget) {
        try {
            return Optional.of(MirrorSnapshots.parse(
                    cli.json(budget.capped(QUESTION_TIME), "snap", "ls", "--all", pool + "/" + image)));
        } catch (RbdException | ReplicationException e) {
            return Optional.empty();
        }
    }

    private static void writeKey(Path keyFile, String key) {
        try {
            if (!Files.exists(keyFile)) {
                Files.createFile(
                        keyFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(
                    keyFile,
                    key,
                    StandardCharsets.US_ASCII,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the peer's key file " + keyFile, e);
        }
    }
}

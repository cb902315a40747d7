package io.volrep.ceph;

/**
 * How the pool's peer site is reached, as {@code rbd mirror pool peer bootstrap import} stored it in this site's
 * cluster for rbd-mirror ({@code rbd_mirror_peer_site_list}, {@code rbd_mirror_peer_site_get_attributes}).
 * {@link #toString()} leaves the key out: it is never logged nor put in a message.
 *
 * <pre>{@code
 * PeerCredentials peer = site.peer().orElseThrow();
 * }</pre>
 *
 * @param siteName the peer's site name, e.g. {@code site-b}
 * @param mirrorUuid its mirror uuid (how mirror statuses name it)
 * @param monHost its mon addresses
 * @param clientName the user to connect as, e.g. {@code client.rbd-mirror-peer}
 * @param key that user's cephx key
 */
record PeerCredentials(String siteName, String mirrorUuid, String monHost, String clientName, String key) {
    @Override
    public String toString() {
        return "PeerCredentials[" + siteName + ", " + clientName + "@" + monHost + ", key ***]";
    }
}

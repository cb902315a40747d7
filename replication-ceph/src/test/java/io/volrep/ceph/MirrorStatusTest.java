package io.volrep.ceph;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonPrimitive;
import io.volrep.api.ReplicationInfo.Status;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The health table of {@link MirrorStatus}, row by row, and the figures read from a replayer's description. */
class MirrorStatusTest {

    private static MirrorStatus withPeer(String state, String description, String lastUpdate) {
        return RbdFixtures.status("""
                {"state":"up+stopped","description":"local image is primary","peer_sites":[{"site_name":"site-b",\
                "state":"%s","description":%s,"last_update":"%s"}]}""".formatted(state, new JsonPrimitive(description), lastUpdate));
    }

    private static String replaying(long local, long remote, String replayState) {
        return "replaying, {\"bytes_per_second\":0.0,\"last_snapshot_bytes\":4096,\"last_snapshot_sync_seconds\":3,"
                + "\"local_snapshot_timestamp\":" + local + ",\"remote_snapshot_timestamp\":" + remote
                + ",\"replay_state\":\"" + replayState + "\"}";
    }

    @ParameterizedTest(name = "{0} / {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            up+replaying      | SYNCED                          | HEALTHY
            up+replaying      | BEHIND                          | DEGRADED
            up+replaying      | SYNCING                         | DEGRADED
            up+replaying      | FIRST                           | DEGRADED
            up+error          | split-brain detected            | ERROR
            up+error          | error bootstrapping replay      | ERROR
            up+stopped        | local image is primary          | ERROR
            up+starting_replay| starting replay                 | DEGRADED
            up+unknown        | remote image is not primary     | DEGRADED
            down+unknown      | status not found                | DEGRADED
            down+replaying    | SYNCED                          | ERROR
            """)
    void eachRowOfTheTable(String state, String description, Status expected) {
        String d = switch (description) {
            case "SYNCED" -> replaying(1795666366, 1795666366, "idle");
            case "BEHIND" -> replaying(1795666366, 1795666426, "idle");
            case "SYNCING" -> replaying(1795666366, 1795666426, "syncing");
            case "FIRST" -> "replaying, {\"remote_snapshot_timestamp\":1795666234,\"replay_state\":\"idle\"}";
            default -> description;
        };

        MirrorStatus.Health health = withPeer(state, d, "2026-11-26 04:12:48").health("vol-0");

        assertThat(health.status()).isEqualTo(expected);
        assertThat(health.message())
                .satisfiesAnyOf(
                        m -> assertThat(expected).isEqualTo(Status.HEALTHY),
                        m -> assertThat(m).contains("site site-b"));
    }

    @Test
    void noPeerAtAllIsError() {
        MirrorStatus status = RbdFixtures.status("{\"state\":\"up+stopped\",\"peer_sites\":[]}");

        assertThat(status.health("vol-0").status()).isEqualTo(Status.ERROR);
        assertThat(status.lastSync()).isEmpty();
    }

    @Test
    void theFiguresOfTheLastSyncComeFromThePeersReplayer() {
        MirrorStatus.Sync sync = withPeer("up+replaying", replaying(1795666366, 1795666366, "idle"), "")
                .lastSync()
                .orElseThrow();

        assertThat(sync.snapshotTime()).isEqualTo(Instant.ofEpochSecond(1795666366));
        assertThat(sync.duration()).contains(Duration.ofSeconds(3));
        assertThat(sync.bytes()).hasValue(4096);
        assertThat(sync.behind()).isFalse();
    }

    @Test
    void aReplayerWithoutACompletedSnapshotHasNoFigures() {
        assertThat(withPeer("up+replaying", "replaying, {\"replay_state\":\"idle\"}", "")
                        .lastSync())
                .isEmpty();
        assertThat(withPeer("up+error", "split-brain detected", "").lastSync()).isEmpty();
    }
}

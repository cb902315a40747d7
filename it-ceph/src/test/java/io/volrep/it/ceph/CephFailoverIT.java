package io.volrep.it.ceph;

import static io.volrep.it.ceph.CephLab.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.it.ceph.CephLab.Lab;
import io.volrep.it.ceph.CephLab.Result;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * volrep's failover on two real Ceph sites, through the {@code volrep} command line: a planned failover moves the same
 * bytes to site B; a disaster (site A's Ceph stopped entirely) fails over with force and loses, by design, exactly
 * what was written after the last completed sync; site A, back, is demoted and resynced through volrep and equals B.
 * The RTO and RPO figures of docs/orchestrator-authors.md come from these runs ({@code [ceph]} lines in the output).
 * Images: {@code vol-0} (planned), {@code vol-4} (disaster).
 */
@ExtendWith(CephLab.class)
// After the classes without an order (the interop tests run beside the conformance suite, which the disaster, stopping
// site A, must wait for: they fill that wait), before CephConformanceIT.
@Order(Order.DEFAULT + 1)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 45, unit = TimeUnit.MINUTES)
class CephFailoverIT {
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(5);

    private static void awaitCompletedSync(Lab lab, String volume) {
        Lab.await(
                SYNC_TIMEOUT,
                "volrep info to show a completed sync of " + volume,
                () -> lab.volrep("info", "--endpoint", lab.endpoint("site-a"), "--volume", volume, "--timeout", "20s")
                                .exit()
                        == 0);
    }

    /** The {@code last_sync_time} {@code site}'s plugin reports for {@code volume}. */
    private static Instant lastSync(Lab lab, String site, String volume) {
        return Instant.ofEpochSecond(info(lab, site, volume).getLastSyncTime().getSeconds());
    }

    private static GetVolumeReplicationInfoResponse info(Lab lab, String site, String volume) {
        return lab.stub(site, Duration.ofSeconds(60))
                .getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(Lab.volume(volume))
                        .build());
    }

    private static void write(Lab lab, String volume, String total) {
        lab.rbd(
                        "site-a",
                        "bench",
                        "--io-type",
                        "write",
                        "--io-size",
                        "1M",
                        "--io-total",
                        total,
                        "--io-pattern",
                        "seq",
                        "rbd/" + volume)
                .requireSuccess("rbd bench " + volume);
    }

    /** Both images get their data and replication at once: their first syncs (10-30 s each) overlap. */
    @BeforeAll
    static void writeAndEnable(Lab lab) {
        write(lab, "vol-0", "16M");
        // vol-4 without a schedule: its only mirror snapshots are enable's, the disaster test's own and demote's, so
        // "after the last sync" is exact
        write(lab, "vol-4", "8M");
        lab.volrep(
                        "enable",
                        "--endpoint",
                        lab.endpoint("site-a"),
                        "--volume",
                        "vol-0",
                        "--parameter",
                        "schedulingInterval=1m")
                .requireSuccess("volrep enable");
        lab.volrep("enable", "--endpoint", lab.endpoint("site-a"), "--volume", "vol-4")
                .requireSuccess("volrep enable");
        awaitCompletedSync(lab, "vol-0");
        awaitCompletedSync(lab, "vol-4");
    }

    @Test
    @Order(1)
    void aPlannedFailoverMovesTheSameBytesToSiteBInOneRun(Lab lab) {
        String onA = lab.sha256("site-a", "vol-0");

        long start = System.nanoTime();
        // No --destination: site A's plugin answers GetReplicationDestinationInfo (the same image, verified on B).
        Result failover = lab.volrep(
                "failover",
                "--from",
                lab.endpoint("site-a"),
                "--to",
                lab.endpoint("site-b"),
                "--volume",
                "vol-0",
                "--timeout",
                "60s");
        long rto = (System.nanoTime() - start) / 1_000_000;

        failover.requireSuccess("volrep failover");
        System.out.printf("[ceph] planned failover of vol-0: RTO %d ms (volrep failover wall time)%n", rto);
        assertThat(lab.role("site-b", "vol-0")).isEqualTo("primary");
        assertThat(lab.role("site-a", "vol-0")).isEqualTo("non-primary");
        assertThat(lab.sha256("site-b", "vol-0")).isEqualTo(onA);
    }

    @Test
    @Order(2)
    void aDisasterFailsOverWithForceLosingOnlyWhatFollowedTheLastSyncAndSiteAComesBackEqual(Lab lab) {
        // Stopping site A waits for the conformance suite beside the tests: waiting here, first, and then taking a
        // fresh sync (vol-4 has no schedule: its last sync would be minutes old) keeps sync, write and failure
        // together, so the RPO printed is what a failure right after a sync loses.
        lab.awaitBackground();
        Instant enabledSync = lastSync(lab, "site-a", "vol-4");
        lab.rbd("site-a", "mirror", "image", "snapshot", "rbd/vol-4").requireSuccess("rbd mirror image snapshot");
        Lab.await(
                SYNC_TIMEOUT,
                "a completed sync of vol-4 after its new mirror snapshot",
                () -> lastSync(lab, "site-a", "vol-4").isAfter(enabledSync));
        Instant lastSync = lastSync(lab, "site-a", "vol-4");
        String synced = lab.sha256("site-a", "vol-4");
        assertThat(lab.volrep("destination", "--endpoint", lab.endpoint("site-a"), "--volume", "vol-4")
                        .requireSuccess("volrep destination")
                        .out())
                .contains("vol-4");
        write(lab, "vol-4", "24M"); // 16 MiB more, after the last completed sync
        String unsynced = lab.sha256("site-a", "vol-4");
        assertThat(unsynced).isNotEqualTo(synced);

        Instant disaster = Instant.now();
        lab.stopSite("site-a");
        try {
            // Site A's plugin still serves, and answers within the caller's deadline that its Ceph is gone.
            long asked = System.nanoTime();
            Status gone = statusOf(() -> lab.stub("site-a", Duration.ofSeconds(15))
                    .demoteVolume(DemoteVolumeRequest.newBuilder()
                            .setReplicationSource(Lab.volume("vol-4"))
                            .build()));
            assertThat(gone.getCode()).as(gone.toString()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(15));

            long start = System.nanoTime();
            Result failover = lab.volrep(
                    "failover",
                    "--from",
                    lab.endpoint("site-a"),
                    "--to",
                    lab.endpoint("site-b"),
                    "--volume",
                    "vol-4",
                    "--destination",
                    "vol-4=vol-4",
                    "--force-if-unreachable",
                    "--timeout",
                    "20s");
            long rto = (System.nanoTime() - start) / 1_000_000;

            failover.requireSuccess("volrep failover --force-if-unreachable");
            assertThat(lastSync(lab, "site-b", "vol-4")).isEqualTo(lastSync);
            assertThat(lab.sha256("site-b", "vol-4"))
                    .as("B holds the last completed sync: what followed it is lost")
                    .isEqualTo(synced);
            System.out.printf(
                    "[ceph] disaster failover of vol-4: RTO %d ms (volrep failover --force-if-unreachable"
                            + " --timeout 20s wall time); RPO %d s (site A failed %s, last completed sync %s): the 16 MiB"
                            + " written after it are not on B%n",
                    rto, Duration.between(lastSync, disaster).toSeconds(), disaster, lastSync);
        } finally {
            lab.startSite("site-a");
        }

        // Site A is back, still primary (with its unsynced writes): demote it and resync it from B through volrep.
        assertThat(lab.role("site-a", "vol-4")).isEqualTo("primary");
        assertThat(lab.sha256("site-a", "vol-4")).isEqualTo(unsynced);
        lab.volrep("demote", "--endpoint", lab.endpoint("site-a"), "--volume", "vol-4")
                .requireSuccess("volrep demote");
        long start = System.nanoTime();
        lab.volrep("resync", "--endpoint", lab.endpoint("site-a"), "--volume", "vol-4", "--await-ready", "5m")
                .requireSuccess("volrep resync --await-ready");
        System.out.printf(
                "[ceph] resync of vol-4 on the returned site A: ready in %d ms%n",
                (System.nanoTime() - start) / 1_000_000);
        assertThat(lab.sha256("site-a", "vol-4"))
                .isEqualTo(lab.sha256("site-b", "vol-4"))
                .isEqualTo(synced);
    }
}

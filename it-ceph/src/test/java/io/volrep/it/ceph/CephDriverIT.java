package io.volrep.it.ceph;

import static io.volrep.it.ceph.CephLab.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.it.ceph.CephLab.Lab;
import io.volrep.proto.replication.ControllerGrpc.ControllerBlockingStub;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Ceph RBD plugin's answers on two real sites, row by row (each row the lab can provoke), through raw gRPC: the
 * codes exactly as the plugins answer them, no client retries. Images: {@code vol-1}, {@code vol-2}, {@code vol-3},
 * {@code vol-6}, {@code vol-7}.
 */
@ExtendWith(CephLab.class)
@Order(1)
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class CephDriverIT {
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(5);
    private static Instant vol2Enabled;

    private static ControllerBlockingStub stub(Lab lab, String site) {
        return lab.stub(site, Duration.ofSeconds(60));
    }

    private static ReplicationSource volume(String id) {
        return Lab.volume(id);
    }

    private static String globalId(Lab lab, String site, String image) {
        Matcher m = Pattern.compile("\"global_id\":\"([^\"]+)\"")
                .matcher(lab.rbd(site, "info", "rbd/" + image, "--format", "json")
                        .requireSuccess("rbd info")
                        .out());
        return m.find() ? m.group(1) : "";
    }

    private static String imageId(Lab lab, String site, String image) {
        Matcher m = Pattern.compile("\"id\":\"([^\"]+)\"")
                .matcher(lab.rbd(site, "info", "rbd/" + image, "--format", "json")
                        .requireSuccess("rbd info")
                        .out());
        return m.find() ? m.group(1) : "";
    }

    /** Calls {@code call} until it answers OK; every other answer must be one of {@code allowed}. */
    private static List<Status.Code> untilOk(Duration timeout, Supplier<Status> call, Status.Code... allowed) {
        List<Status.Code> seen = new ArrayList<>();
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            Status s = call.get();
            if (s.isOk()) {
                return seen;
            }
            seen.add(s.getCode());
            assertThat(s.getCode())
                    .as("answer %d: %s", seen.size(), s.getDescription())
                    .isIn((Object[]) allowed);
            assertThat(System.nanoTime())
                    .as("no OK within %s; answers %s", timeout, seen)
                    .isLessThan(end);
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Both lifecycles' images get replication at once: their first syncs (10-30 s each) overlap. */
    @BeforeAll
    static void enable(Lab lab) {
        lab.rbd("site-a", "bench", "--io-type", "write", "--io-size", "1M", "--io-total", "4M", "rbd/vol-3")
                .requireSuccess("rbd bench");
        vol2Enabled = Instant.now();
        stub(lab, "site-a")
                .enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(volume("vol-2"))
                        .putParameters("schedulingInterval", "1m")
                        .build());
        stub(lab, "site-a")
                .enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(volume("vol-3"))
                        .build());
    }

    @Test
    void aSourceThatIsNotReplicatedOrDoesNotExistOrIsAGroup(Lab lab) {
        ControllerBlockingStub a = stub(lab, "site-a");
        ReplicationSource plain = volume("vol-6");

        Status missing = statusOf(() -> a.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(volume("volrep-no-such-image"))
                .build()));
        Status promote = statusOf(() -> a.promoteVolume(
                PromoteVolumeRequest.newBuilder().setReplicationSource(plain).build()));
        Status demote = statusOf(() -> a.demoteVolume(
                DemoteVolumeRequest.newBuilder().setReplicationSource(plain).build()));
        Status resync = statusOf(() -> a.resyncVolume(
                ResyncVolumeRequest.newBuilder().setReplicationSource(plain).build()));
        Status info = statusOf(() -> a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                .setReplicationSource(plain)
                .build()));
        Status destination =
                statusOf(() -> a.getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                        .setReplicationSource(plain)
                        .build()));
        Status disable = statusOf(() -> a.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(plain)
                .build()));
        Status group = statusOf(() -> a.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(ReplicationSource.newBuilder()
                        .setVolumegroup(
                                ReplicationSource.VolumeGroupSource.newBuilder().setVolumeGroupId("grp-0")))
                .build()));

        assertThat(missing.getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(missing.getDescription()).contains("image volrep-no-such-image does not exist in pool rbd");
        for (Status s : List.of(promote, demote, resync, info, destination)) {
            assertThat(s.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(s.getDescription()).contains("replication is not enabled for vol-6");
        }
        assertThat(disable.getCode()).as("disable is idempotent").isEqualTo(Status.Code.OK);
        assertThat(group.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(lab.role("site-a", "vol-6")).isEqualTo("disabled");
    }

    @Test
    void aReplicationsLifeOnTwoRealSites(Lab lab) {
        ControllerBlockingStub a = stub(lab, "site-a");
        ControllerBlockingStub b = stub(lab, "site-b");
        ReplicationSource vol = volume("vol-2");
        EnableVolumeReplicationRequest enable = EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(vol)
                .putParameters("schedulingInterval", "1m")
                .build();
        Supplier<Status> infoA =
                () -> statusOf(() -> a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build()));

        // Enabled before all tests; again: idempotent. Info is 5 "not available at the moment" until site B has
        // completed a first sync.
        a.enableVolumeReplication(enable);
        long start = System.nanoTime();
        List<Status.Code> beforeFirstSync = untilOk(SYNC_TIMEOUT, infoA, Status.Code.NOT_FOUND);
        System.out.printf(
                "[ceph] vol-2: first completed sync reported %d ms into this test (%d answers 5 before)%n",
                (System.nanoTime() - start) / 1_000_000, beforeFirstSync.size());
        GetVolumeReplicationInfoResponse info = a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                .setReplicationSource(vol)
                .build());
        assertThat(Instant.ofEpochSecond(info.getLastSyncTime().getSeconds()))
                .isBetween(vol2Enabled.minusSeconds(5), Instant.now());
        assertThat(info.getStatus())
                .isIn(
                        GetVolumeReplicationInfoResponse.Status.HEALTHY,
                        GetVolumeReplicationInfoResponse.Status.DEGRADED);
        assertThat(lab.rbd("site-a", "mirror", "snapshot", "schedule", "ls", "--pool", "rbd", "--image", "vol-2")
                        .out())
                .contains("every 1m");

        // The destination is the same image on site B, verified by its mirroring global id.
        String destination = a.getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())
                .getReplicationDestination()
                .getVolume()
                .getVolumeId();
        assertThat(destination).isEqualTo("vol-2");
        assertThat(globalId(lab, "site-b", "vol-2"))
                .isEqualTo(globalId(lab, "site-a", "vol-2"))
                .isNotEmpty();
        assertThat(lab.role("site-b", "vol-2")).isEqualTo("non-primary");

        // Promote of a primary changes nothing; Resync of a primary is 9; Info of the copy is 9.
        a.promoteVolume(
                PromoteVolumeRequest.newBuilder().setReplicationSource(vol).build());
        assertThat(statusOf(() -> a.resyncVolume(ResyncVolumeRequest.newBuilder()
                                .setReplicationSource(vol)
                                .build()))
                        .getCode())
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(statusOf(() -> b.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                                .setReplicationSource(vol)
                                .build()))
                        .getCode())
                .isEqualTo(Status.Code.FAILED_PRECONDITION);

        // Demote A (twice: idempotent), then promote B without force: rbd refuses until A's demotion has arrived,
        // and the plugin answers that window 10 ABORTED (retry), never 9 (which invites a forced promote).
        a.demoteVolume(
                DemoteVolumeRequest.newBuilder().setReplicationSource(vol).build());
        a.demoteVolume(
                DemoteVolumeRequest.newBuilder().setReplicationSource(vol).build());
        List<Status.Code> window = untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> b.promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        System.out.printf("[ceph] vol-2: promote on B after A's demote answered %s before OK%n", window);
        assertThat(lab.role("site-b", "vol-2")).isEqualTo("primary");
        assertThat(lab.rbd("site-b", "mirror", "snapshot", "schedule", "ls", "--pool", "rbd", "--image", "vol-2")
                        .out())
                .as("the schedule follows the primary")
                .contains("every 1m");

        // A, now the copy, cannot be promoted without force: B holds the primary (asked at B).
        Status promoteA = statusOf(() -> a.promoteVolume(
                PromoteVolumeRequest.newBuilder().setReplicationSource(vol).build()));
        assertThat(promoteA.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(promoteA.getDescription()).contains("cannot be promoted without force", "primary on site site-b");

        // Resync of the clean copy: ready once it holds B's latest snapshot, without a needless full copy.
        String idBefore = imageId(lab, "site-a", "vol-2");
        untilReady(a, vol);
        assertThat(imageId(lab, "site-a", "vol-2"))
                .as("no full resync of a clean copy")
                .isEqualTo(idBefore);

        // Back to A, then disable there: site B's copy is deleted by rbd-mirror, none is left behind.
        b.demoteVolume(
                DemoteVolumeRequest.newBuilder().setReplicationSource(vol).build());
        untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> a.promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> a.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        assertThat(lab.role("site-a", "vol-2")).isEqualTo("disabled");
        Lab.await(
                Duration.ofMinutes(5),
                "site B's copy of vol-2 to be deleted",
                () -> lab.role("site-b", "vol-2").equals("absent"));
    }

    @Test
    void disablingADemotedSourcePromotesItFirstSoThePeersCopyIsDeletedAndTheDataStays(Lab lab) {
        ControllerBlockingStub a = stub(lab, "site-a");
        ReplicationSource vol = volume("vol-3");
        String data = lab.sha256("site-a", "vol-3");
        untilOk(
                SYNC_TIMEOUT,
                () -> statusOf(() -> a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.NOT_FOUND);
        a.demoteVolume(
                DemoteVolumeRequest.newBuilder().setReplicationSource(vol).build());
        assertThat(lab.role("site-b", "vol-3")).isEqualTo("non-primary");

        // 10 until B's rbd-mirror has replayed A's promotion again (disabled before that, B's copy stays for ever)
        untilOk(
                SYNC_TIMEOUT,
                () -> statusOf(() -> a.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);

        assertThat(lab.role("site-a", "vol-3")).isEqualTo("disabled");
        assertThat(lab.sha256("site-a", "vol-3")).isEqualTo(data);
        Lab.await(
                Duration.ofMinutes(5),
                "site B's copy of vol-3 to be deleted",
                () -> lab.role("site-b", "vol-3").equals("absent"));
    }

    private static void untilReady(ControllerBlockingStub stub, ReplicationSource vol) {
        long end = System.nanoTime() + SYNC_TIMEOUT.toNanos();
        while (!stub.resyncVolume(ResyncVolumeRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())
                .getReady()) {
            assertThat(System.nanoTime())
                    .as("resync ready within %s", SYNC_TIMEOUT)
                    .isLessThan(end);
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Enable, disable and enable again at once, several times (the kit's resets do this): rbd-mirror on B must never be
     * left with a copy of an earlier mirroring, which it would keep for ever in "error bootstrapping replay" (a disable
     * while B creates its copy left one), making every later enable of the image a split-brain.
     */
    @Test
    void quickDisableAndEnableCyclesLeaveNoOrphanOnThePeer(Lab lab) {
        ControllerBlockingStub a = stub(lab, "site-a");
        ReplicationSource vol = volume("vol-1");
        for (int round = 0; round < 3; round++) {
            untilOk(
                    Duration.ofMinutes(5),
                    () -> statusOf(() -> a.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                            .setReplicationSource(vol)
                            .build())),
                    Status.Code.ABORTED);
            untilOk(
                    Duration.ofMinutes(5),
                    () -> statusOf(() -> a.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                            .setReplicationSource(vol)
                            .build())),
                    Status.Code.ABORTED);
        }
        untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> a.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);

        // B's copy is this mirroring's (same global id), replaying: the destination settles and Info reports a sync.
        untilOk(
                SYNC_TIMEOUT,
                () -> statusOf(() -> a.getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.UNAVAILABLE);
        assertThat(globalId(lab, "site-b", "vol-1"))
                .isEqualTo(globalId(lab, "site-a", "vol-1"))
                .isNotEmpty();
        untilOk(
                SYNC_TIMEOUT,
                () -> statusOf(() -> a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.NOT_FOUND);

        untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> a.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        Lab.await(
                Duration.ofMinutes(5),
                "site B's copy of vol-1 to be deleted",
                () -> lab.role("site-b", "vol-1").equals("absent"));
    }

    /**
     * Demoted right after the enable, before B has a copy: no site is primary, so rbd-mirror never creates one. The
     * destination is still known (RBD keeps the name): "not yet available" (14) would never end.
     */
    @Test
    void aSourceDemotedBeforeThePeerHasACopyStillNamesItsDestination(Lab lab) {
        ControllerBlockingStub a = stub(lab, "site-a");
        ReplicationSource vol = volume("vol-7");
        a.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(vol)
                .build());
        a.demoteVolume(
                DemoteVolumeRequest.newBuilder().setReplicationSource(vol).build());

        untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> a.getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.UNAVAILABLE);
        assertThat(a.getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                                .setReplicationSource(vol)
                                .build())
                        .getReplicationDestination()
                        .getVolume()
                        .getVolumeId())
                .isEqualTo("vol-7");

        untilOk(
                Duration.ofMinutes(5),
                () -> statusOf(() -> a.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        assertThat(lab.role("site-a", "vol-7")).isEqualTo("disabled");
        Lab.await(
                Duration.ofMinutes(5),
                "no copy of vol-7 on site B",
                () -> lab.role("site-b", "vol-7").equals("absent"));
    }
}

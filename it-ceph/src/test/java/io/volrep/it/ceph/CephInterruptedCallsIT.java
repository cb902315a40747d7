package io.volrep.it.ceph;

import static io.volrep.it.ceph.CephLab.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.volrep.it.ceph.CephLab.Lab;
import io.volrep.proto.replication.ControllerGrpc.ControllerBlockingStub;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import java.time.Duration;
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
 * Calls the disasters interrupt (issue 44 items 1 and 2), on two real sites through raw gRPC: every mutating RPC
 * started with a deadline too short for it answers in time, leaves no image stuck, and the same call with a normal
 * deadline then succeeds with the image in the state it asked for; a plugin killed and restarted in the middle of a
 * resync answers as before (what it asked of Ceph lives in Ceph). Images of its own: {@code dr-0}, {@code dr-1}.
 */
@ExtendWith(CephLab.class)
@Order(1)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class CephInterruptedCallsIT {
    /**
     * 1.2 s: the runtime keeps a tenth back for the answer to travel and the plugin 1 s more to answer in, so about
     * 0.08 s is left for Ceph.
     */
    private static final Duration TOO_SHORT = Duration.ofMillis(1200);

    private static final Duration LONG_ENOUGH = Duration.ofSeconds(60);
    private static final Duration SETTLE = Duration.ofMinutes(2);

    @BeforeAll
    static void images(Lab lab) {
        for (String image : List.of("dr-0", "dr-1")) {
            lab.rbd("site-a", "create", "--size", "64M", "rbd/" + image).requireSuccess("rbd create " + image);
            lab.rbd("site-a", "bench", "--io-type", "write", "--io-size", "1M", "--io-total", "4M", "rbd/" + image)
                    .requireSuccess("rbd bench " + image);
        }
    }

    private static ReplicationSource volume(String id) {
        return Lab.volume(id);
    }

    /**
     * The starved call: its answer arrives before its deadline (no DEADLINE_EXCEEDED) and is OK, or one of the tables'
     * answers for "not now" (10 ABORTED: the change goes on in the plugin; 14 UNAVAILABLE: no answer from Ceph yet).
     */
    private static Status starved(String what, Supplier<Status> call) {
        long start = System.nanoTime();
        Status s = call.get();
        long took = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("[ceph] %s with a %d ms deadline: %s in %d ms%n", what, TOO_SHORT.toMillis(), s, took);
        assertThat(s.getCode()).as(what + ": " + s).isIn(Status.Code.OK, Status.Code.ABORTED, Status.Code.UNAVAILABLE);
        return s;
    }

    /** Calls {@code call} until it answers OK; every other answer must be one of {@code allowed}. */
    private static void untilOk(Supplier<Status> call, Status.Code... allowed) {
        List<Status.Code> seen = new ArrayList<>();
        long end = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            Status s = call.get();
            if (s.isOk()) {
                return;
            }
            seen.add(s.getCode());
            assertThat(s.getCode()).as("answer %d: %s", seen.size(), s).isIn((Object[]) allowed);
            assertThat(System.nanoTime())
                    .as("no OK within %s; answers %s", SETTLE, seen)
                    .isLessThan(end);
            sleep(500);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String imageId(Lab lab, String site, String image) {
        Matcher m = Pattern.compile("\"id\":\"([^\"]+)\"")
                .matcher(lab.rbd(site, "info", "rbd/" + image, "--format", "json")
                        .out());
        return m.find() ? m.group(1) : "";
    }

    private static String mirroringState(Lab lab, String site, String image) {
        Matcher m = Pattern.compile("\"state\":\"([a-z]+)\"")
                .matcher(lab.rbd(site, "info", "rbd/" + image, "--format", "json")
                        .out());
        return m.find() ? m.group(1) : "none";
    }

    @Test
    void everyMutatingCallStartedWithADeadlineTooShortLeavesNoImageStuckAndTheNextCallFinishesIt(Lab lab) {
        ControllerBlockingStub aShort = lab.stub("site-a", TOO_SHORT);
        ControllerBlockingStub bShort = lab.stub("site-b", TOO_SHORT);
        ControllerBlockingStub a = lab.stub("site-a", LONG_ENOUGH);
        ControllerBlockingStub b = lab.stub("site-b", LONG_ENOUGH);
        ReplicationSource vol = volume("dr-0");
        EnableVolumeReplicationRequest enable = EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(vol)
                .build();
        DemoteVolumeRequest demote =
                DemoteVolumeRequest.newBuilder().setReplicationSource(vol).build();
        PromoteVolumeRequest promote =
                PromoteVolumeRequest.newBuilder().setReplicationSource(vol).build();
        DisableVolumeReplicationRequest disable = DisableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(vol)
                .build();

        starved("EnableVolumeReplication", () -> statusOf(() -> aShort.enableVolumeReplication(enable)));
        untilOk(() -> statusOf(() -> a.enableVolumeReplication(enable)), Status.Code.ABORTED);
        assertThat(lab.role("site-a", "dr-0")).isEqualTo("primary");
        untilOk(
                () -> statusOf(() -> a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.NOT_FOUND);

        starved("DemoteVolume", () -> statusOf(() -> aShort.demoteVolume(demote)));
        untilOk(() -> statusOf(() -> a.demoteVolume(demote)), Status.Code.ABORTED);
        assertThat(lab.role("site-a", "dr-0")).isEqualTo("non-primary");

        starved("PromoteVolume", () -> statusOf(() -> bShort.promoteVolume(promote)));
        untilOk(() -> statusOf(() -> b.promoteVolume(promote)), Status.Code.ABORTED);
        assertThat(lab.role("site-b", "dr-0")).isEqualTo("primary");

        // A forced resync (a full copy) started on the copy with a deadline too short: it is flagged, or not yet;
        // the resyncs after it with a normal deadline end ready, with B's data.
        ResyncVolumeRequest forced = ResyncVolumeRequest.newBuilder()
                .setReplicationSource(vol)
                .setForce(true)
                .build();
        starved("ResyncVolume (force)", () -> statusOf(() -> aShort.resyncVolume(forced)));
        untilReady(a, vol);
        assertThat(lab.sha256("site-a", "dr-0")).isEqualTo(lab.sha256("site-b", "dr-0"));

        // back to A, then the starved disable: never left "disabling" with 10 for ever
        untilOk(() -> statusOf(() -> b.demoteVolume(demote)), Status.Code.ABORTED);
        untilOk(() -> statusOf(() -> a.promoteVolume(promote)), Status.Code.ABORTED);
        starved("DisableVolumeReplication", () -> statusOf(() -> aShort.disableVolumeReplication(disable)));
        untilOk(() -> statusOf(() -> a.disableVolumeReplication(disable)), Status.Code.ABORTED);
        assertThat(lab.role("site-a", "dr-0")).isEqualTo("disabled");
        assertThat(mirroringState(lab, "site-a", "dr-0")).isNotEqualTo("disabling");
        Lab.await(
                Duration.ofSeconds(90),
                "site B's copy of dr-0 to be deleted",
                () -> lab.role("site-b", "dr-0").equals("absent"));
    }

    /** Resync (unforced) until ready; every answer is OK, ready or not (never an error: no 9 while recreated). */
    private static void untilReady(ControllerBlockingStub site, ReplicationSource vol) {
        ResyncVolumeRequest request =
                ResyncVolumeRequest.newBuilder().setReplicationSource(vol).build();
        long end = System.nanoTime() + Duration.ofMinutes(4).toNanos();
        int answers = 0;
        while (true) {
            answers++;
            boolean ready;
            try {
                ready = site.resyncVolume(request).getReady();
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode())
                        .as("resync answer %d: %s", answers, e.getStatus())
                        .isIn(Status.Code.ABORTED, Status.Code.UNAVAILABLE);
                ready = false;
            }
            if (ready) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("resync not ready after %d answers", answers)
                    .isLessThan(end);
            sleep(1000);
        }
    }

    @Test
    void aPluginKilledAndRestartedInTheMiddleOfAResyncAnswersAsBefore(Lab lab) {
        ControllerBlockingStub a = lab.stub("site-a", LONG_ENOUGH);
        ControllerBlockingStub b = lab.stub("site-b", LONG_ENOUGH);
        ReplicationSource vol = volume("dr-1");
        a.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(vol)
                .build());
        untilOk(
                () -> statusOf(() -> a.getVolumeReplicationInfo(GetVolumeReplicationInfoRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.NOT_FOUND);
        untilOk(
                () -> statusOf(() -> a.demoteVolume(DemoteVolumeRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        untilOk(
                () -> statusOf(() -> b.promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(vol)
                        .build())),
                Status.Code.ABORTED);
        String before = imageId(lab, "site-a", "dr-1");

        boolean ready = a.resyncVolume(ResyncVolumeRequest.newBuilder()
                        .setReplicationSource(vol)
                        .setForce(true)
                        .build())
                .getReady();
        assertThat(ready)
                .as("a forced resync is a full copy: not ready at once")
                .isFalse();
        lab.restartPlugin("site-a");

        ControllerBlockingStub restarted = lab.stub("site-a", LONG_ENOUGH);
        untilReady(restarted, vol);
        assertThat(imageId(lab, "site-a", "dr-1")).as("recreated by rbd-mirror").isNotEqualTo(before);
        assertThat(lab.sha256("site-a", "dr-1")).isEqualTo(lab.sha256("site-b", "dr-1"));
    }
}

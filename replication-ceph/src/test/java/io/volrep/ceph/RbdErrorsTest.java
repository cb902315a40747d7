package io.volrep.ceph;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import io.volrep.ceph.internal.rados.CephException;
import io.volrep.ceph.internal.rados.Errno;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One test per entry of {@link RbdErrors}, the one table of what Ceph's answers mean to the driver. */
class RbdErrorsTest {
    private static RbdException failed(String operation, int errno) {
        return new RbdException("site site-a", operation, errno, "");
    }

    @Test
    void enoentOpeningTheImageIsAMissingImageAndOnlyThen() {
        RbdException opening =
                RbdException.of("site site-a", "info rbd/vol-0", new CephException("rbd_open(rbd/vol-0)", 2, ""));
        RbdException schedule = RbdException.of(
                "site site-a", "mirror snapshot schedule remove", new CephException("rados_mgr_command", 2, ""));

        assertThat(opening.imageMissing()).isTrue();
        assertThat(schedule.imageMissing()).isFalse();
        assertThat(RbdErrors.noScheduleToRemove(schedule)).isTrue();
    }

    @Test
    void timeoutsShutdownsRefusalsAndNoConnectionAreAnUnreachableCluster() {
        for (int errno : new int[] {Errno.ETIMEDOUT, Errno.ESHUTDOWN, Errno.ECONNREFUSED, Errno.ENOTCONN}) {
            assertThat(failed("info rbd/vol-0", errno).unreachable())
                    .as("errno %d", errno)
                    .isTrue();
        }
        assertThat(failed("info rbd/vol-0", Errno.EINVAL).unreachable()).isFalse();
    }

    @Test
    void eaccesAndEpermAreMissingCaps() {
        assertThat(RbdErrors.notPermitted(failed("mirror image enable", Errno.EACCES)))
                .isTrue();
        assertThat(RbdErrors.notPermitted(failed("mirror image enable", Errno.EPERM)))
                .isTrue();
        assertThat(RbdErrors.notPermitted(failed("mirror image enable", Errno.EBUSY)))
                .isFalse();
    }

    @Test
    void ebusyAndErofsOnAPromoteAreTheDemotionWindowAndOnlyErofsSaysTheDemotionArrived() {
        assertThat(RbdErrors.promoteRefused(failed("mirror image promote", Errno.EBUSY)))
                .isTrue();
        assertThat(RbdErrors.promoteRefused(failed("mirror image promote", Errno.EROFS)))
                .isTrue();
        assertThat(RbdErrors.promoteRefused(failed("mirror image promote", Errno.EINVAL)))
                .isFalse();
        assertThat(RbdErrors.demotionArrivedImageHeld(failed("mirror image promote", Errno.EROFS)))
                .isTrue();
        assertThat(RbdErrors.demotionArrivedImageHeld(failed("mirror image promote", Errno.EBUSY)))
                .isFalse();
    }

    @Test
    void ebusyAndErofsOnADemoteAreABusyImage() {
        assertThat(RbdErrors.busy(failed("mirror image demote", Errno.EBUSY))).isTrue();
        assertThat(RbdErrors.busy(failed("mirror image demote", Errno.EROFS))).isTrue();
        assertThat(RbdErrors.busy(failed("mirror image demote", Errno.ENOENT))).isFalse();
    }

    @Test
    void einvalOnAnEnableIsARefusedEnable() {
        assertThat(RbdErrors.enableRefused(failed("mirror image enable", Errno.EINVAL)))
                .isTrue();
        assertThat(RbdErrors.enableRefused(failed("mirror image enable", Errno.EBUSY)))
                .isFalse();
    }

    @Test
    void einvalWithTheMgrsWordsOnTheStartTimeIsABadStartTime() {
        RbdException refused = new RbdException(
                "site site-a", "mirror snapshot schedule add", Errno.EINVAL, "Invalid start time 25:00:00: ...");

        assertThat(RbdErrors.badStartTime(refused)).isTrue();
        assertThat(RbdErrors.badStartTime(failed("mirror snapshot schedule add", Errno.EINVAL)))
                .isFalse();
    }

    @Test
    void theMessageNamesTheCallAndTheErrnoAndNothingElse() {
        assertThat(failed("mirror image promote rbd/vol-0", Errno.EBUSY).getMessage())
                .isEqualTo("site site-a: mirror image promote rbd/vol-0 failed: (16) Device or resource busy");
    }

    @Test
    void theMgrsScheduleListIsReadByLevelAndAnUnexpectedShapeIsNoSchedule() {
        var answer = JsonParser.parseString("""
                {"1//1029d2d0a2ea": {"name": "rbd/vol-0", "schedule": [{"interval": "1m", "start_time": null},
                 {"interval": "2m", "start_time": "14:00:00-05:00"}]},
                 "1//other": {"name": "rbd/vol-1", "schedule": [{"interval": "5m", "start_time": null}]},
                 "odd": [1, 2], "odder": {"name": "rbd/vol-0", "schedule": {"interval": "9m"}}}""");

        assertThat(SnapshotSchedule.fromMgrList(answer, "rbd/vol-0"))
                .containsExactly(new SnapshotSchedule("1m", ""), new SnapshotSchedule("2m", "14:00:00-05:00"));
        assertThat(SnapshotSchedule.fromMgrList(JsonParser.parseString("[1]"), "rbd/vol-0"))
                .isEmpty();
    }

    @Test
    void aResyncRequestIsReadAsJsonAndAValueOfAnotherShapeIsNone() {
        assertThat(LocalPool.resyncRequested("{\"resync_requested\": true}")).isTrue();
        assertThat(LocalPool.resyncRequested("{\"resync_requested\": false}")).isFalse();
        assertThat(LocalPool.resyncRequested("{\"resync_requested\": \"true\"}"))
                .isFalse();
        assertThat(LocalPool.resyncRequested("\"resync_requested\": true")).isFalse();
        assertThat(LocalPool.resyncRequested("[true]")).isFalse();
    }

    @Test
    void rbdMirrorsDescriptionsAreReadByTheirWords() {
        MirrorStatus copy = new MirrorStatus("up+error", "split-brain detected", List.of());
        MirrorStatus peerPrimary = new MirrorStatus(
                "up+stopped",
                "local image is primary",
                List.of(new MirrorStatus.Peer("site-b", "up+stopped", "local image is primary", "")));
        MirrorStatus notReported = new MirrorStatus(
                "up+stopped",
                "local image is primary",
                List.of(new MirrorStatus.Peer("site-b", "down+unknown", "status not found", "")));

        assertThat(copy.splitBrain()).isTrue();
        assertThat(peerPrimary.health("vol-0").message()).contains("primary there too (split-brain)");
        assertThat(notReported.health("vol-0").message()).contains("has not reported on vol-0 yet");
    }
}

package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report of {@code volrep failover} names the sites after the endpoints given (issue 49): failing back from the
 * lab's site-b to its site-a says so, where it used to say {@code SOURCE (A)}, {@code primary on b} and {@code 1 of 1
 * primary on site B} while the volume was primary on site-a. A source that a run could not finish says in which state
 * it is and which command finishes it.
 */
class FailoverReportLabelsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private FakePlugin site(Path socket) {
        return grpc.register(
                FakePlugin.builder().volumes(1).listen("unix://" + socket).start());
    }

    private static void reconcile(FakePlugin site, String state) {
        Run r = volrep("reconcile", "--endpoint", site.address(), "--volume", "vol-0", "--state", state);
        assertThat(r.exit()).as(r.all()).isZero();
    }

    @Test
    void failingBackFromSiteBToSiteANamesTheSitesAsGiven(@TempDir Path dir) {
        FakePlugin siteA = site(dir.resolve("site-a.sock"));
        FakePlugin siteB = site(dir.resolve("site-b.sock"));
        reconcile(siteA, "primary");
        reconcile(siteB, "secondary");
        Run there = volrep(
                "failover",
                "--from",
                siteA.address(),
                "--to",
                siteB.address(),
                "--volume",
                "vol-0",
                "--assume-same-ids");
        assertThat(there.exit()).as(there.all()).isZero();
        assertThat(there.out())
                .contains("SOURCE (site-a)")
                .contains("DESTINATION (site-b)")
                .containsPattern("volume vol-0 +volume vol-0 +primary on site-b +demoted +no +\\d{4}-")
                .contains("  last sync (site-b): ")
                .contains("failover: 1 of 1 primary on site-b");

        Run back = volrep(
                "failover",
                "--from",
                siteB.address(),
                "--to",
                siteA.address(),
                "--volume",
                "vol-0",
                "--assume-same-ids");

        assertThat(back.exit()).as(back.all()).isZero();
        assertThat(back.out())
                .contains("SOURCE (site-b)")
                .contains("DESTINATION (site-a)")
                .contains("ON site-b")
                .contains("LAST SYNC (site-a)")
                .containsPattern("volume vol-0 +volume vol-0 +primary on site-a +demoted +no +\\d{4}-\\S+ +same ids")
                .contains("  last sync (site-a): ")
                .contains("failover: 1 of 1 primary on site-a")
                .doesNotContain("(A)")
                .doesNotContain("(B)")
                .doesNotContain("primary on b")
                .doesNotContain("site B");
        assertThat(back.err())
                .contains("volume vol-0 -> vol-0: checking site-a")
                .contains("volume vol-0 -> vol-0: demoting on site-b")
                .contains("volume vol-0 -> vol-0: promoting on site-a")
                .contains("volume vol-0 -> vol-0: primary on site-a")
                .contains("total: 1 of 1 primary on site-a, 0 refused, 0 failed, 0 in progress")
                .doesNotContain("site B");
    }

    @Test
    void sitesWhoseSocketsShareAFileNameAreNamedAfterTheirDirectories() {
        assertThat(SiteNames.of("unix:///site-a/csi-addons.sock", "unix:///site-b/csi-addons.sock"))
                .isEqualTo(new SiteNames("site-a", "site-b"));
        assertThat(SiteNames.of("unix:///tmp/a.sock", "/tmp/b.sock")).isEqualTo(new SiteNames("site A", "site B"));
        assertThat(SiteNames.of("dns:///replication.east:9090", "west.example:9090"))
                .isEqualTo(new SiteNames("site replication.east:9090", "site west.example:9090"));
        assertThat(SiteNames.of("unix:///x/csi.sock", "unix:///x/csi.sock"))
                .isEqualTo(new SiteNames("site A", "site B"));
    }

    @Test
    void anUnfinishedSourceSaysItsStateAndTheCommandThatFinishesIt(@TempDir Path dir) throws Exception {
        FakePlugin siteA = site(dir.resolve("site-a.sock"));
        FakePlugin siteB = site(dir.resolve("site-b.sock"));
        reconcile(siteA, "primary");
        reconcile(siteB, "secondary");
        // Site B refuses the unforced promote beyond the demotion wait: site-a demoted, site-b not primary.
        siteA.faults()
                .onAnswered(
                        Rpc.DEMOTE_VOLUME,
                        source -> siteB.refuse(
                                Rpc.PROMOTE_VOLUME,
                                source,
                                StatusCode.FAILED_PRECONDITION,
                                FaultInjector.Window.calls(1000)));
        Path secrets = Files.writeString(dir.resolve("secrets"), "user=s3cret-value\n");

        Run run = volrep(
                "failover",
                "--from",
                siteA.address(),
                "--to",
                siteB.address(),
                "--volume",
                "vol-0",
                "--destination",
                "vol-0=vol-0",
                "--secrets-file",
                secrets.toString(),
                "--secret",
                "token=inline-s3cret",
                "--demotion-wait",
                "500ms");

        assertThat(run.exit()).as(run.all()).isEqualTo(1);
        String same = "volrep failover --from " + siteA.address() + " --to " + siteB.address()
                + " --volume vol-0 --destination vol-0=vol-0 --secrets-file " + secrets + " --secret token=...";
        assertThat(run.out())
                .contains("  state: site-a demoted, site-b not primary: no site takes writes")
                .contains("  finish with: " + same + " --demotion-wait 500ms")
                .contains("  or go back: volrep promote --endpoint " + siteA.address() + " --volume vol-0")
                .doesNotContain("s3cret");
        assertThat(run.err()).doesNotContain("s3cret");

        // The cause fixed, the command printed finishes it.
        siteA.faults().clearFaults();
        siteB.faults().clearFaults();
        Run finish = volrep(
                "failover",
                "--from",
                siteA.address(),
                "--to",
                siteB.address(),
                "--volume",
                "vol-0",
                "--destination",
                "vol-0=vol-0",
                "--secrets-file",
                secrets.toString(),
                "--secret",
                "token=inline-s3cret");
        assertThat(finish.exit()).as(finish.all()).isZero();
        assertThat(finish.out()).doesNotContain("  state: ").doesNotContain("finish with");
    }

    @Test
    void siteAUnreachableSaysWhichCommandFinishesOnceItAnswersAndWhichIfItIsKnownDown(@TempDir Path dir) {
        FakePlugin siteB = site(dir.resolve("site-b.sock"));
        reconcile(siteB, "secondary");
        String gone = "unix://" + dir.resolve("site-a.sock");

        Run run = volrep(
                "failover",
                "--from",
                gone,
                "--to",
                siteB.address(),
                "--volume",
                "vol-0",
                "--assume-same-ids",
                "--timeout",
                "3s");

        assertThat(run.exit()).as(run.all()).isEqualTo(1);
        String same = "volrep failover --from " + gone + " --to " + siteB.address()
                + " --volume vol-0 --assume-same-ids --timeout 3s";
        assertThat(run.out())
                .contains("  state: site-a did not answer its demote (it may still be primary, or be demoted);"
                        + " nothing promoted on site-b")
                .contains("  finish with: " + same + " (once site-a answers)")
                .contains("  or, only if site-a is known down: " + same + " --force-if-unreachable");
    }
}

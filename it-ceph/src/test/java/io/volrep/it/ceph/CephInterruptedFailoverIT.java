package io.volrep.it.ceph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.client.reconcile.FailoverStep;
import io.volrep.it.ceph.CephLab.Lab;
import io.volrep.it.ceph.CephLab.Result;
import io.volrep.it.ceph.CephLab.VolrepProcess;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 44 item 3 on two real Ceph sites: a {@code volrep failover} that is interrupted converges. The orchestrator is
 * killed (SIGKILL of the {@code volrep failover} process) at each step boundary (after check B, demote A, promote B,
 * verify B), and the same failover run again completes without {@code --force}; site A's plugin is killed and
 * restarted mid-failover; the rbd-mirror of either site is stopped for 30 s mid-failover. Each image ends primary on
 * exactly one site (site-b), with site-a's bytes (SHA-256 of {@code rbd export}). A run that cannot complete says where
 * the image stands and which command finishes it: the test runs that command, as printed. The process stops at a
 * boundary through volrep failover's test hook ({@code VOLREP_TEST_FAILOVER_PAUSE}), never by timing.
 *
 * <p>This class kills plugins and stops rbd-mirrors: it brings up a lab of its own (the shared one's conformance run
 * must not see that), after {@link CephEightVolumeFailoverIT}'s and before the shared lab, and takes it down after.
 * Images: {@code vol-0} .. {@code vol-3} (the four boundaries), {@code vol-4} (plugin), {@code vol-5} and {@code vol-6}
 * (rbd-mirror of site-a, of site-b).
 */
@Order(1)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// A hang-catcher, far above the time a loaded machine takes (each method: 1-3 minutes there); the waits below wait
// for conditions.
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class CephInterruptedFailoverIT {
    private static final String HOOK = "VOLREP_TEST_FAILOVER_PAUSE";
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration PAUSE_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(10);
    /** Each call's budget: generous, so that a slow answer on a loaded machine is not taken for a site that is gone. */
    private static final String CALL_BUDGET = "90s";

    private static final Map<FailoverStep, String> IMAGE_AT = Map.of(
            FailoverStep.DEMOTING_ON_A, "vol-0",
            FailoverStep.PROMOTING_ON_B, "vol-1",
            FailoverStep.VERIFYING_ON_B, "vol-2",
            FailoverStep.PRIMARY_ON_B, "vol-3");
    private static final List<String> IMAGES = List.of("vol-0", "vol-1", "vol-2", "vol-3", "vol-4", "vol-5", "vol-6");
    private static final Pattern FINISH = Pattern.compile("(?m)^  finish with: volrep (.*?)( \\(once [^)]*\\))?$");

    private static Lab lab;
    /** Each image's bytes on site-a before its failover. */
    private static final Map<String, String> onA = new ConcurrentHashMap<>();

    @BeforeAll
    static void ownLabWithSevenReplicatedImages() {
        String missing = CephPackages.missing();
        assumeTrue(missing == null, () -> "ceph: " + missing + ": Ceph integration tests skipped");
        assumeTrue(
                Files.isRegularFile(CephLab.jar()), "replication-cli/target/volrep.jar is missing: build the module");
        lab = Lab.start();
        for (int i = 0; i < IMAGES.size(); i++) {
            lab.rbd(
                            "site-a",
                            "bench",
                            "--io-type",
                            "write",
                            "--io-size",
                            "256K",
                            "--io-total",
                            (i + 2) + "M",
                            "--io-pattern",
                            "rand",
                            "rbd/" + IMAGES.get(i))
                    .requireSuccess("rbd bench " + IMAGES.get(i));
        }
        for (String image : IMAGES) {
            lab.volrep("enable", "--endpoint", lab.endpoint("site-a"), "--volume", image)
                    .requireSuccess("volrep enable " + image);
        }
        for (String image : IMAGES) {
            Lab.await(
                    SYNC_TIMEOUT,
                    "a completed sync of " + image,
                    () -> lab.volrep(
                                            "info",
                                            "--endpoint",
                                            lab.endpoint("site-a"),
                                            "--volume",
                                            image,
                                            "--timeout",
                                            "60s")
                                    .exit()
                            == 0);
            onA.put(image, lab.sha256("site-a", image));
        }
        assertThat(onA.values()).doesNotHaveDuplicates();
    }

    @AfterAll
    static void down() {
        if (lab != null) {
            lab.close();
        }
    }

    /** {@code failover --from site-a --to site-b --volume IMAGE}: destinations from site A, no force. */
    private static String[] failover(String image) {
        return new String[] {
            "failover",
            "--from",
            lab.endpoint("site-a"),
            "--to",
            lab.endpoint("site-b"),
            "--volume",
            image,
            "--timeout",
            CALL_BUDGET
        };
    }

    /** The failover of {@code image} in a process of its own, paused (the test hook) when it enters {@code step}. */
    private static VolrepProcess pausedAt(String image, FailoverStep step) {
        VolrepProcess run = lab.volrepProcess(Map.of(HOOK, step.name()), failover(image));
        run.awaitErr("volume " + image + " paused at " + step, PAUSE_TIMEOUT);
        return run;
    }

    private static String roles(String image) {
        return "site-a " + lab.role("site-a", image) + ", site-b " + lab.role("site-b", image);
    }

    /** Primary on site-b and on no other site, never forced, with site-a's bytes. */
    private static void assertFailedOver(String image) {
        assertThat(lab.role("site-b", image)).as(image + " on site-b").isEqualTo("primary");
        assertThat(lab.role("site-a", image)).as(image + " on site-a").isEqualTo("non-primary");
        assertThat(lab.sha256("site-b", image))
                .as(image + ": site-b's bytes are site-a's")
                .isEqualTo(onA.get(image));
    }

    /**
     * A run that ended: done, or its report says where the image stands and which command finishes it; that command
     * (the same failover, no force) then completes it. Returns how many runs it took.
     */
    private static int completed(String image, Result first) {
        if (first.exit() == 0) {
            assertThat(first.out()).contains("failover: 1 of 1 primary on site-b");
            return 1;
        }
        assertThat(first.out()).as(first.out() + first.err()).contains("  state: ");
        Matcher finish = FINISH.matcher(first.out());
        assertThat(finish.find()).as(first.out()).isTrue();
        String[] args = finish.group(1).split(" ");
        assertThat(Arrays.asList(args)).contains(image).doesNotContain("--force-if-unreachable");
        Result again = lab.volrep(args).requireSuccess("the printed command volrep " + finish.group(1));
        assertThat(again.out()).contains("failover: 1 of 1 primary on site-b");
        return 2;
    }

    @ParameterizedTest
    @EnumSource(
            value = FailoverStep.class,
            names = {"DEMOTING_ON_A", "PROMOTING_ON_B", "VERIFYING_ON_B", "PRIMARY_ON_B"})
    @Order(1)
    void killedAtAStepBoundaryTheSameFailoverAgainCompletesWithoutForce(FailoverStep boundary) {
        String image = IMAGE_AT.get(boundary);
        VolrepProcess killed = pausedAt(image, boundary);
        killed.kill();
        String atKill = roles(image);

        Result again = lab.volrep(failover(image)).requireSuccess("the same failover again");

        assertThat(again.out())
                .containsPattern("volume " + image + " +volume " + image + " +primary on site-b +demoted +no ")
                .contains("failover: 1 of 1 primary on site-b");
        assertFailedOver(image);
        System.out.printf(
                "[ceph] failover of %s killed (SIGKILL) at %s (%s), the same failover again: done in one run%n",
                image, boundary, atKill);
    }

    @Test
    @Order(2)
    void siteAsPluginKilledAndRestartedMidFailover() {
        String image = "vol-4";
        VolrepProcess run = pausedAt(image, FailoverStep.DEMOTING_ON_A);
        run.resume(); // its DemoteVolume goes out now, to a plugin killed under it
        long killed = System.nanoTime();
        try {
            lab.site("kill-plugin", "site-a");
        } finally {
            lab.site("start-plugin", "site-a"); // back when it serves
        }
        long down = (System.nanoTime() - killed) / 1_000_000;

        int runs = completed(image, run.awaitExit(RUN_TIMEOUT));

        assertFailedOver(image);
        System.out.printf(
                "[ceph] failover of %s with site-a's plugin killed mid-failover and restarted (%d ms without it):"
                        + " done in %d run(s)%n",
                image, down, runs);
    }

    @ParameterizedTest
    @ValueSource(strings = {"site-a", "site-b"})
    @Order(3)
    void rbdMirrorOfEitherSiteStoppedForThirtySecondsMidFailover(String site) throws InterruptedException {
        String image = site.equals("site-a") ? "vol-5" : "vol-6";
        VolrepProcess run = pausedAt(image, FailoverStep.DEMOTING_ON_A);
        lab.site("stop-mirror", site);
        long stopped = System.nanoTime();
        try {
            run.resume();
            TimeUnit.NANOSECONDS.sleep(Duration.ofSeconds(30).toNanos() - (System.nanoTime() - stopped));
        } finally {
            lab.site("start-mirror", site);
        }

        int runs = completed(image, run.awaitExit(RUN_TIMEOUT));

        assertFailedOver(image);
        System.out.printf(
                "[ceph] failover of %s with %s's rbd-mirror stopped for 30 s mid-failover: done in %d run(s)%n",
                image, site, runs);
    }
}

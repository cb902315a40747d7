package io.volrep.it.ceph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.it.ceph.CephLab.Lab;
import io.volrep.it.ceph.CephLab.Result;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35's criterion on real storage: {@code volrep failover} of all eight images {@code vol-0} .. {@code vol-7} of
 * the two-site Ceph lab succeeds in one run, without force, and site B then holds exactly site A's bytes (SHA-256 of
 * {@code rbd export} on each site). Right after a demote, site B's Ceph refuses an unforced promote until the demotion
 * has arrived (the plugin answers 10 ABORTED), and has no completed sync to report right after the promote (Info 5):
 * the failover waits both out. This class brings up a lab of its own (all eight images are its), before the classes
 * that share the per-JVM lab ({@link CephLab}), and takes it down after.
 */
@Order(0)
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class CephEightVolumeFailoverIT {
    private static final int IMAGES = 8;
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(5);
    private static Lab lab;

    @BeforeAll
    static void ownLab() {
        String missing = CephPackages.missing();
        assumeTrue(missing == null, () -> "ceph: " + missing + ": Ceph integration tests skipped");
        assumeTrue(
                Files.isRegularFile(CephLab.jar()), "replication-cli/target/volrep.jar is missing: build the module");
        lab = Lab.start();
    }

    @AfterAll
    static void down() {
        if (lab != null) {
            lab.close();
        }
    }

    private static String image(int i) {
        return "vol-" + i;
    }

    @Test
    void allEightImagesFailOverInOneRunWithoutForceAndSiteBHoldsTheSameBytes() {
        // Different data in each image (1..8 MiB at random offsets), then replication: the first syncs overlap.
        for (int i = 0; i < IMAGES; i++) {
            lab.rbd(
                            "site-a",
                            "bench",
                            "--io-type",
                            "write",
                            "--io-size",
                            "256K",
                            "--io-total",
                            (i + 1) + "M",
                            "--io-pattern",
                            "rand",
                            "rbd/" + image(i))
                    .requireSuccess("rbd bench " + image(i));
        }
        for (int i = 0; i < IMAGES; i++) {
            lab.volrep("enable", "--endpoint", lab.endpoint("site-a"), "--volume", image(i))
                    .requireSuccess("volrep enable " + image(i));
        }
        for (int i = 0; i < IMAGES; i++) {
            String volume = image(i);
            Lab.await(
                    SYNC_TIMEOUT,
                    "a completed sync of " + volume,
                    () -> lab.volrep(
                                            "info",
                                            "--endpoint",
                                            lab.endpoint("site-a"),
                                            "--volume",
                                            volume,
                                            "--timeout",
                                            "20s")
                                    .exit()
                            == 0);
        }
        Map<String, String> onA = new LinkedHashMap<>();
        for (int i = 0; i < IMAGES; i++) {
            onA.put(image(i), lab.sha256("site-a", image(i)));
        }
        assertThat(onA.values()).doesNotHaveDuplicates();

        List<String> args = new ArrayList<>(List.of(
                "failover",
                "--from",
                lab.endpoint("site-a"),
                "--to",
                lab.endpoint("site-b"),
                "--timeout",
                "60s",
                "--parallel",
                "4"));
        for (int i = 0; i < IMAGES; i++) {
            args.addAll(List.of("--volume", image(i)));
        }
        long start = System.nanoTime();
        Result failover = lab.volrep(args.toArray(String[]::new));
        long took = (System.nanoTime() - start) / 1_000_000;

        failover.requireSuccess("volrep failover of vol-0 .. vol-7");
        assertThat(failover.out()).contains("failover: 8 of 8 primary on site-b");
        for (int i = 0; i < IMAGES; i++) {
            String volume = image(i);
            // destination from site A (GetReplicationDestinationInfo), demoted there, not forced, B's sync reported
            assertThat(failover.out())
                    .containsPattern("volume " + volume + " +volume " + volume
                            + " +primary on site-b +demoted +no +\\d{4}-\\S+ +site-a");
            assertThat(lab.role("site-b", volume)).as(volume + " on B").isEqualTo("primary");
            assertThat(lab.role("site-a", volume)).as(volume + " on A").isEqualTo("non-primary");
            assertThat(lab.sha256("site-b", volume))
                    .as(volume + ": B's bytes are A's")
                    .isEqualTo(onA.get(volume));
        }
        // The client retries a 10 ABORTED within each call; the failover's own waits show as progress lines.
        System.out.printf(
                "[ceph] failover of vol-0 .. vol-7 in one run: %d ms; the failover itself waited %d time(s)"
                        + " for a demotion to reach site B and %d time(s) for B's first completed sync%n",
                took,
                waits(failover.err(), "site-a's demotion to reach site-b"),
                waits(failover.err(), "site-b's first completed sync"));
    }

    /** How many progress lines say the failover waited for {@code what}. */
    private static int waits(String progress, String what) {
        Matcher m =
                Pattern.compile(Pattern.quote("(waiting for " + what + ": ")).matcher(progress);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}

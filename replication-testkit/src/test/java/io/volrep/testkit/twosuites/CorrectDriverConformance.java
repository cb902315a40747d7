package io.volrep.testkit.twosuites;

import io.volrep.testkit.CheckGroup;
import io.volrep.testkit.ConformanceChecks;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ReplicationConformanceSuite;
import io.volrep.testkit.reference.ReferenceDriver;
import java.util.List;

/**
 * One of two suite classes a vendor keeps in one module (a correct driver and a buggy one), run by
 * {@code TwoSuitesSurefireIT} through a real Surefire: the DemoteVolume group against the reference driver.
 * Not named {@code *Test}: this module's own test run leaves it alone.
 */
public class CorrectDriverConformance extends ReplicationConformanceSuite {
    /** The one group both suites run, so that their check names collide. */
    static final String GROUP = "DemoteVolume";

    @Override
    protected ConformanceConfig config() {
        return ConformanceConfig.builder()
                .driver(ReferenceDriver.builder().volumes(2).groups(1).build())
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .build();
    }

    @Override
    protected List<CheckGroup> checkGroups() {
        return demoteOnly();
    }

    static List<CheckGroup> demoteOnly() {
        return ConformanceChecks.all().stream()
                .filter(g -> g.name().equals(GROUP))
                .toList();
    }
}

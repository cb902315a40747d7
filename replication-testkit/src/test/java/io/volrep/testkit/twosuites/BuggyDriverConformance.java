package io.volrep.testkit.twosuites;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.testkit.CheckGroup;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ReplicationConformanceSuite;
import io.volrep.testkit.reference.ReferenceDriver;
import java.util.List;

/**
 * The other suite class of {@link CorrectDriverConformance}: a driver whose demote answers 0 OK where the spec
 * says 9 FAILED_PRECONDITION (replication not enabled), so some of its DemoteVolume checks fail.
 */
public class BuggyDriverConformance extends ReplicationConformanceSuite {
    @Override
    protected ConformanceConfig config() {
        ReferenceDriver reference =
                ReferenceDriver.builder().volumes(2).groups(1).build();
        ReplicationDriver buggy = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest r) {
                reference.enable(r);
            }

            @Override
            public void disable(DisableRequest r) {
                reference.disable(r);
            }

            @Override
            public void promote(PromoteRequest r) {
                reference.promote(r);
            }

            @Override
            public ResyncResult resync(ResyncRequest r) {
                return reference.resync(r);
            }

            @Override
            public ReplicationInfo info(InfoRequest r) {
                return reference.info(r);
            }

            @Override
            public void demote(DemoteRequest r) {
                try {
                    reference.demote(r);
                } catch (PreconditionFailedException e) {
                    // the bug: a demote of a source that is not replicated "succeeds"
                }
            }
        };
        return ConformanceConfig.builder()
                .driver(buggy)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .build();
    }

    @Override
    protected List<CheckGroup> checkGroups() {
        return CorrectDriverConformance.demoteOnly();
    }
}

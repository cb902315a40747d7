package io.volrep.examples;

import io.volrep.api.HealReport;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.SpecDialect;
import io.volrep.api.VolumeCapability;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;

/** The Java snippets of docs/storage-vendors.md, compiled. */
@SuppressWarnings("unused")
final class VendorExamples {
    /** The node the docs' healer runs on. */
    interface Node {
        boolean hasVolume(String volumeId);
    }

    AcmeArray array;
    AcmeArray backend;
    Node node;
    ReplicationDriver driver;
    HealerDriver healer;

    boolean fsck(String volumePath) {
        return true;
    }

    // snippet:start healer
    public final class AcmeHealer implements HealerDriver {
        public HealReport heal(HealRequest r) {
            if (!node.hasVolume(r.volumeId())) {
                throw new SourceNotFoundException("volume " + r.volumeId() + " does not exist");   // 5 NOT_FOUND
            }
            boolean block = r.capability().map(c -> c.accessType() == VolumeCapability.AccessType.BLOCK).orElse(false);
            return block || fsck(r.volumePath()) ? HealReport.healthy("filesystem clean")
                                                 : HealReport.abnormal("journal errors; remount scheduled");
        }
    }
    // snippet:end healer

    void serveHealer() {
        // snippet:start healer
        ReplicationServer.builder().healer(new AcmeHealer())           // a node plugin: healer only
                .listen("unix:///csi/csi-addons.sock").build().start();
        // snippet:end healer
    }

    void serveLegacy() {
        // snippet:start dialect
        ReplicationServer.builder().driver(new AcmeDriver(array)).dialect(SpecDialect.V0_1_3)
                .listen("unix:///csi/csi-addons.sock").build().start();
        // snippet:end dialect
    }

    void serveIdentity() {
        // snippet:start identity
        ReplicationServer.builder().driver(driver).healer(healer)
                .identity("rbd.acme.com", "2.4.1").readiness(backend::isConnected)
                .listen("unix:///csi/csi-addons.sock").build().start();
        // snippet:end identity
    }
}

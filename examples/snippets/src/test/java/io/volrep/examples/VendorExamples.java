package io.volrep.examples;

import io.volrep.api.HealReport;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.SpecDialect;
import io.volrep.api.VolumeCapability;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.spi.CreateGroupRequest;
import io.volrep.spi.DeleteGroupRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.ModifyGroupRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.VolumeGroupDriver;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The Java snippets of docs/storage-vendors.md, compiled. */
@SuppressWarnings("unused")
final class VendorExamples {
    /** The node the docs' healer runs on. */
    interface Node {
        boolean hasVolume(String volumeId);
    }

    /** The array's consistency groups, as the docs' volume group driver uses them. */
    interface ConsistencyGroups {
        VolumeGroup createOrFind(String name, List<String> volumeIds);

        VolumeGroup setMembers(String groupId, List<String> volumeIds);

        boolean isMirrored(String groupId);

        void drop(String groupId);
    }

    AcmeArray array;
    ConsistencyGroups cgs;
    AcmeArray backend;
    Node node;
    ReplicationDriver driver;
    HealerDriver healer;

    boolean fsck(String volumePath) {
        return true;
    }

    // snippet:start healer
    public final class AcmeHealer implements HealerDriver {
        @Override
        public HealReport heal(HealRequest r) {
            if (!node.hasVolume(r.volumeId())) {
                throw new SourceNotFoundException("volume " + r.volumeId() + " does not exist"); // 5 NOT_FOUND
            }
            boolean block = r.capability()
                    .map(c -> c.accessType() == VolumeCapability.AccessType.BLOCK)
                    .orElse(false);
            return block || fsck(r.volumePath())
                    ? HealReport.healthy("filesystem clean")
                    : HealReport.abnormal("journal errors; remount scheduled");
        }
    }
    // snippet:end healer

    void serveHealer() {
        // snippet:start healer
        ReplicationServer.builder()
                .healer(new AcmeHealer()) // a node plugin: healer only
                .listen("unix:///csi/csi-addons.sock")
                .build()
                .start();
        // snippet:end healer
    }

    void serveLegacy() {
        // snippet:start dialect
        ReplicationServer.builder()
                .driver(new AcmeDriver(array))
                .dialect(SpecDialect.V0_1_3)
                .listen("unix:///csi/csi-addons.sock")
                .build()
                .start();
        // snippet:end dialect
    }

    void serveIdentity() {
        // snippet:start identity
        ReplicationServer.builder()
                .driver(driver)
                .healer(healer)
                .identity("rbd.acme.com", "2.4.1")
                .readiness(backend::isConnected)
                .listen("unix:///csi/csi-addons.sock")
                .build()
                .start();
        // snippet:end identity
    }

    // snippet:start volume-groups
    public final class AcmeGroups implements VolumeGroupDriver { // create, delete, modify: what the array does
        @Override
        public VolumeGroup create(CreateGroupRequest r) {
            return cgs.createOrFind(r.name(), r.volumeIds()); // the same name again: the same group
        }

        @Override
        public VolumeGroup modify(ModifyGroupRequest r) {
            return cgs.setMembers(r.volumeGroupId(), r.volumeIds()); // exactly these members
        }

        @Override
        public void delete(DeleteGroupRequest r) {
            if (cgs.isMirrored(r.volumeGroupId())) {
                throw new PreconditionFailedException("volume group " + r.volumeGroupId() + " is replicated");
            }
            cgs.drop(r.volumeGroupId()); // unknown: nothing to do, 0 OK
        }

        @Override
        public Set<VolumeGroupCapability> served() { // declared: create and delete, and modify
            return EnumSet.of(VolumeGroupCapability.VOLUME_GROUP, VolumeGroupCapability.MODIFY_VOLUME_GROUP);
        }

        @Override
        public Set<VolumeGroupCapability> behaviours() {
            return Set.of(
                    VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP,
                    VolumeGroupCapability.DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES);
        }
    }
    // snippet:end volume-groups

    /** Where the docs' decorator writes. */
    interface AuditLog {
        void record(String event);
    }

    AuditLog audit;

    void decorated() {
        // snippet:start forwarding
        ReplicationDriver neverForced = new ForwardingReplicationDriver(new AcmeDriver(array)) {
            @Override
            public void promote(PromoteRequest r) { // a site policy: forcing is for an operator, by hand
                audit.record("promote " + r.source() + (r.force() ? " (force dropped)" : ""));
                super.promote(r.toBuilder().force(false).build()); // a changed copy; requests are immutable
            }
        }; // serves and advertises exactly what AcmeDriver declares
        ReplicationServer.builder()
                .driver(neverForced)
                .listen("unix:///csi/csi-addons.sock")
                .build()
                .start();
        // snippet:end forwarding
    }

    void serveGroups() {
        // snippet:start volume-groups
        ReplicationServer.builder()
                .driver(driver)
                .volumeGroups(new AcmeGroups())
                .listen("unix:///csi/csi-addons.sock")
                .build()
                .start();
        // snippet:end volume-groups
    }
}

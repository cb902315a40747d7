package io.volrep.api;

import io.grpc.ServiceDescriptor;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The revisions of the replication spec that volrep speaks, each as data: its generated service (which RPCs and
 * fields exist), its error tables, the source kinds it can name and whether {@code volume_id} carries the source (or
 * is reserved, as upstream HEAD has it). Two are not
 * wire-compatible with the current one, so a client must know which revision a plugin speaks (see
 * docs/compatibility.md, "Adding a spec revision"). {@link io.volrep.api.internal.wire.Transcoder} turns these rules into
 * messages.
 *
 * <pre>{@code
 * SpecDialect d = SpecDialect.fromName("v0.1.3");
 * d.supports(Rpc.GET_VOLUME_REPLICATION_INFO);          // true
 * SpecDialect.V0_1_0.supports(ReplicationSource.Kind.VOLUME_GROUP); // false
 * }</pre>
 */
public enum SpecDialect {
    /** Seed 001: ReplicationSource (volume = 1, volumegroup = 2, volumesnapshot = 3); volume_id deprecated; csi_secret. */
    CURRENT(
            "current",
            io.volrep.proto.replication.ControllerGrpc::getServiceDescriptor,
            "error-scheme.tsv",
            EnumSet.allOf(ReplicationSource.Kind.class),
            false,
            false),
    /**
     * Upstream HEAD (csi-addons/spec 80d74f9, 2026), what kubernetes-csi-addons and ceph-csi speak: the current
     * revision's RPCs, numbers and tables, but field 1 {@code volume_id} is {@code reserved} (a plugin built on it
     * ignores the field as unknown, and a client never sends it) and there is no {@code volumesnapshot} source.
     */
    UPSTREAM_2026(
            "upstream-2026",
            io.volrep.proto.replication.ControllerGrpc::getServiceDescriptor,
            "error-scheme.tsv",
            EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP),
            false,
            true),
    /** Seed 003: volume_id REQUIRED; ReplicationSource numbered volumegroup = 1, volume = 2; info has last_sync_time only. */
    V0_1_3(
            "v0.1.3",
            io.volrep.proto.replication.v0_1_3.ControllerGrpc::getServiceDescriptor,
            "error-scheme-v0_1_3.tsv",
            EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP),
            true,
            false),
    /** Seed 000: volume_id only, no ReplicationSource, no replication_id, no GetVolumeReplicationInfo. */
    V0_1_0(
            "v0.1.0",
            io.volrep.proto.replication.v0_1_0.ControllerGrpc::getServiceDescriptor,
            "error-scheme-v0_1_0.tsv",
            EnumSet.of(ReplicationSource.Kind.VOLUME),
            true,
            false);

    private final String cliName;
    private final Supplier<ServiceDescriptor> service;
    private final String errorTable;
    private final Set<ReplicationSource.Kind> kinds;
    private final boolean volumeIdRequired;
    private final boolean volumeIdReserved;

    SpecDialect(
            String cliName,
            Supplier<ServiceDescriptor> service,
            String errorTable,
            Set<ReplicationSource.Kind> kinds,
            boolean volumeIdRequired,
            boolean volumeIdReserved) {
        this.cliName = cliName;
        this.service = service;
        this.errorTable = errorTable;
        this.kinds = kinds;
        this.volumeIdRequired = volumeIdRequired;
        this.volumeIdReserved = volumeIdReserved;
    }

    /**
     * The name the CLI's {@code --dialect} takes: {@code current}, {@code upstream-2026}, {@code v0.1.3},
     * {@code v0.1.0}.
     */
    public String cliName() {
        return cliName;
    }

    /** The dialect a CLI name (or enum name) stands for. */
    public static SpecDialect fromName(String name) {
        for (SpecDialect d : values()) {
            if (d.cliName.equalsIgnoreCase(name) || d.name().equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown spec dialect '" + name + "'; expected one of "
                + Arrays.stream(values()).map(SpecDialect::cliName).collect(Collectors.joining(", ")));
    }

    /**
     * This revision's {@code replication.Controller} as its own protos generate it: which RPCs and fields exist.
     * A wire-level escape hatch for the transcoder and the testkit; applications never need it.
     */
    public ServiceDescriptor wireService() {
        return service.get();
    }

    /** True when this revision defines the RPC (v0.1.0 has no GetVolumeReplicationInfo; NodeHealer is separate). */
    public boolean supports(Rpc rpc) {
        return !rpc.isReplication()
                || wireService().getMethods().stream()
                        .anyMatch(m -> rpc.fullMethodName().equals(m.getFullMethodName()));
    }

    /** True when this revision can name a source of this kind on the wire. */
    public boolean supports(ReplicationSource.Kind kind) {
        return kinds.contains(kind);
    }

    /**
     * True when every request must carry {@code volume_id} (the legacy revisions): it carries the source's id,
     * a group's id too, and {@code replication_source} (where the revision has one) says what kind it names.
     */
    public boolean volumeIdRequired() {
        return volumeIdRequired;
    }

    /**
     * True when field 1 ({@code volume_id}) is {@code reserved} (upstream HEAD): a plugin of this revision ignores it
     * as an unknown field, so a request naming its source only there names none, and a client never sends it.
     */
    public boolean volumeIdReserved() {
        return volumeIdReserved;
    }

    /** True when this revision's messages are the current revision's (field numbers and all): upstream HEAD's are. */
    public boolean speaksCurrentMessages() {
        return wireService() == CURRENT.wireService();
    }

    /** The resource (next to {@link ErrorScheme}) holding this revision's error tables, one row a line. */
    String errorTable() {
        return errorTable;
    }

    /** This revision's error tables. */
    public ErrorScheme errorScheme() {
        return ErrorScheme.forDialect(this);
    }

    @Override
    public String toString() {
        return cliName;
    }
}

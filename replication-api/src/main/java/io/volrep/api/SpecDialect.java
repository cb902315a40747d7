package io.volrep.api;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The revisions of the replication spec that volrep speaks. Two are not wire-compatible with the current
 * one, so a client must know which revision a plugin speaks (see docs/compatibility.md).
 *
 * <pre>{@code
 * SpecDialect d = SpecDialect.fromName("v0.1.3");
 * d.supports(Rpc.GET_VOLUME_REPLICATION_INFO);          // true
 * SpecDialect.V0_1_0.supports(ReplicationSource.Kind.VOLUME_GROUP); // false
 * }</pre>
 */
public enum SpecDialect {
    /** Seed 001: ReplicationSource (volume = 1, volumegroup = 2, volumesnapshot = 3); volume_id deprecated; csi_secret. */
    CURRENT("current", EnumSet.allOf(ReplicationSource.Kind.class), false, true),
    /** Seed 003: volume_id REQUIRED; ReplicationSource numbered volumegroup = 1, volume = 2; info has last_sync_time only. */
    V0_1_3("v0.1.3", EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP), true, true),
    /** Seed 000: volume_id only, no ReplicationSource, no GetVolumeReplicationInfo. */
    V0_1_0("v0.1.0", EnumSet.of(ReplicationSource.Kind.VOLUME), true, false);

    private final String cliName;
    private final Set<ReplicationSource.Kind> kinds;
    private final boolean volumeIdRequired;
    private final boolean hasInfo;

    SpecDialect(String cliName, Set<ReplicationSource.Kind> kinds, boolean volumeIdRequired, boolean hasInfo) {
        this.cliName = cliName;
        this.kinds = kinds;
        this.volumeIdRequired = volumeIdRequired;
        this.hasInfo = hasInfo;
    }

    /** The name the CLI's {@code --dialect} takes: {@code current}, {@code v0.1.3}, {@code v0.1.0}. */
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

    /** True when this revision defines the RPC (v0.1.0 has no GetVolumeReplicationInfo; NodeHealer is separate). */
    public boolean supports(Rpc rpc) {
        return rpc != Rpc.GET_VOLUME_REPLICATION_INFO || hasInfo;
    }

    /** True when this revision can name a source of this kind on the wire. */
    public boolean supports(ReplicationSource.Kind kind) {
        return kinds.contains(kind);
    }

    /** True when every request must carry {@code volume_id} (the legacy revisions). */
    public boolean volumeIdRequired() {
        return volumeIdRequired;
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

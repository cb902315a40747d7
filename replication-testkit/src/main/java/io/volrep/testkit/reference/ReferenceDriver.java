package io.volrep.testkit.reference;

import io.volrep.api.HealReport;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.api.internal.Arguments;
import io.volrep.spi.CreateGroupRequest;
import io.volrep.spi.DeleteGroupRequest;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.GetGroupRequest;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.ListGroupsRequest;
import io.volrep.spi.ModifyGroupRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.spi.VolumeGroupDriver;
import io.volrep.testkit.reference.ReferenceFixtures.Fixture;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An in-memory replication plugin with the spec's semantics, to test orchestrators and the testkit against:
 * <ul>
 *   <li>a source exists (a configured fixture) or the call answers NOT_FOUND;</li>
 *   <li>when secrets are configured, a call whose secrets lack one or carry another value answers
 *       UNAUTHENTICATED (checked first: a caller that cannot authenticate learns nothing about sources);</li>
 *   <li>enable and disable are idempotent; disable returns the source to primary;</li>
 *   <li>promote and demote need replication enabled (FAILED_PRECONDITION otherwise) and are idempotent;</li>
 *   <li>resync needs replication enabled and the source demoted, and reports {@code ready} only after
 *       progress: on the {@link Builder#resyncCallsUntilReady n}-th call (2 by default), never the first;</li>
 *   <li>info needs replication enabled and the source primary; it returns the last sync time, duration and
 *       bytes, and status HEALTHY (DEGRADED for a volume the builder marked {@link Builder#degradedVolume
 *       degraded}).</li>
 * </ul>
 * As a {@link HealerDriver} (NodeHealer), every fixture volume exists on the node at whatever path the
 * orchestrator names: secrets are checked as above, other volume ids answer NOT_FOUND, and a volume is healthy
 * unless the builder marked it {@link Builder#abnormalVolume abnormal}; the report always carries a message.
 * As a {@link VolumeGroupDriver} it serves {@code volumegroup.Controller} in memory (every RPC, with
 * {@code LIMIT_VOLUME_TO_ONE_VOLUME_GROUP} and {@code DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES}): the groups it creates are
 * replication sources of this driver from then on, its fixture volumes ({@code vol-0}..) can be grouped, a group whose
 * replication is enabled is in use (delete answers 9), and a group's destination maps every current member to itself
 * (the other site uses the same ids). Every fixture starts disabled and primary. Every applied state change is
 * recorded in an {@link #effects() effect log} with a global and a per-source sequence number, so a load test can check that nothing was lost,
 * applied twice or reordered per source. Thread-safe.
 *
 * <pre>{@code
 * ReferenceDriver driver = ReferenceDriver.builder().volumes(16).groups(2)
 *         .requiredSecret("user", "admin").build();
 * try (ReplicationServer server = ReferencePlugin.start(driver, "inprocess:ref")) {
 *     ... drive it with a client ...
 *     assertThat(driver.state(ReplicationSource.volume("vol-0")).enabled()).isTrue();
 * }
 * }</pre>
 */
public final class ReferenceDriver implements ReplicationDriver, HealerDriver, VolumeGroupDriver {
    /** Which side of the replication a source is. */
    public enum Role {
        PRIMARY,
        SECONDARY
    }

    /** The kinds of applied change the effect log records. */
    public enum Change {
        ENABLED,
        DISABLED,
        PROMOTED,
        DEMOTED,
        RESYNC_PROGRESSED,
        RESYNC_COMPLETED
    }

    /**
     * A source's state.
     *
     * @param source the source
     * @param enabled whether replication is enabled
     * @param role primary or secondary
     * @param resyncProgress resync calls since the last demote (0 when none); ready once it reaches the threshold
     * @param lastSyncTime when the last sync completed (enable time, or the last completed resync); null until
     *                     replication is first enabled
     * @param parameters the parameters of the last enable call
     */
    public record SourceState(
            ReplicationSource source,
            boolean enabled,
            Role role,
            int resyncProgress,
            Instant lastSyncTime,
            Map<String, String> parameters) {
        public SourceState {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(role, "role");
            parameters = Map.copyOf(parameters);
        }

        static SourceState initial(ReplicationSource source) {
            return new SourceState(source, false, Role.PRIMARY, 0, null, Map.of());
        }
    }

    /**
     * One applied state change.
     *
     * @param sequence position in the whole log, from 1
     * @param sourceSequence position among this source's changes, from 1
     * @param source the source changed
     * @param change what changed
     * @param after the source's state after the change
     */
    public record Effect(
            long sequence, long sourceSequence, ReplicationSource source, Change change, SourceState after) {}

    private final ReferenceFixtures fixtures;
    private final ReferenceVolumeGroups groups;
    private final Set<String> abnormalVolumes;
    private final Set<String> degradedVolumes;
    private final ReferenceGate gate;
    private final ReferenceTransitions transitions;
    private final long lastSyncBytes;

    private ReferenceDriver(Builder b) {
        this.fixtures = new ReferenceFixtures(b.sources);
        this.groups = new ReferenceVolumeGroups(id -> fixtures.get(ReplicationSource.volume(id)) != null);
        b.sources.stream()
                .filter(s -> s.kind() == ReplicationSource.Kind.VOLUME_GROUP)
                .forEach(s -> groups.fixture(s.id()));
        this.abnormalVolumes = Set.copyOf(b.abnormalVolumes);
        this.degradedVolumes = Set.copyOf(b.degradedVolumes);
        this.gate = new ReferenceGate(b.latency, Secrets.of(b.requiredSecrets));
        this.transitions =
                new ReferenceTransitions(b.clock, b.demotionWindow, b.firstSyncDelay, b.resyncCallsUntilReady);
        this.lastSyncBytes = b.lastSyncBytes;
    }

    /** Links every fixture of {@code a} with the same source of {@code b}: one replication pair on two sites. */
    static void pair(ReferenceDriver a, ReferenceDriver b) {
        ReferenceFixtures.pair(a.fixtures, b.fixtures);
    }

    /** A new builder: no sources until you add some. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Enables replication: this site becomes the primary and, in a {@link ReferencePair}, the peer site holds the
     * secondary copy. Idempotent in either role.
     */
    @Override
    public void enable(EnableRequest r) {
        transitions.enable(enter(r.source(), r.secrets()), r.parameters());
    }

    /** Disables replication; in a {@link ReferencePair} on both sites (the peer's copy is removed). Idempotent. */
    @Override
    public void disable(DisableRequest r) {
        transitions.disable(enter(r.source(), r.secrets()));
    }

    /**
     * Promotes. In a {@link ReferencePair}, without force, a copy is not promoted while the peer site holds the
     * primary, nor within {@link Builder#demotionWindow the demotion window} after the peer's demote (9
     * FAILED_PRECONDITION, "cannot be promoted without force", as real mirroring refuses until the demotion has
     * arrived); with force it is, and a peer that was still primary is left in split-brain until it resyncs.
     */
    @Override
    public void promote(PromoteRequest r) {
        transitions.promote(enter(r.source(), r.secrets()), r.force());
    }

    @Override
    public void demote(DemoteRequest r) {
        transitions.demote(enter(r.source(), r.secrets()));
    }

    /**
     * Resyncs a secondary: ready on the {@link Builder#resyncCallsUntilReady n}-th call. In a {@link ReferencePair}
     * only while the peer site holds the primary (there is nothing to copy from otherwise).
     */
    @Override
    public ResyncResult resync(ResyncRequest r) {
        return transitions.resync(enter(r.source(), r.secrets()));
    }

    /**
     * Info of the primary. Within {@link Builder#firstSyncDelay the first-sync delay} after an enable or a promote it
     * answers 5 NOT_FOUND ("details not available at the moment", as the table allows); a copy left in split-brain
     * reports status ERROR.
     */
    @Override
    public ReplicationInfo info(InfoRequest r) {
        Fixture f = enter(r.source(), r.secrets());
        synchronized (f.lock()) {
            ReferenceTransitions.requireRole(f, Role.PRIMARY, "is not promoted: info needs the primary");
            if (transitions.firstSyncPending(f)) {
                throw new SourceNotFoundException("replication details of " + f.state.source() + " are not available"
                        + " at the moment: the first sync after the enable or promote has not completed");
            }
            if (f.splitBrain || (f.peer != null && f.peer.splitBrain)) {
                return ReplicationInfo.of(f.state.lastSyncTime())
                        .withLastSyncDuration(Duration.ofMillis(250))
                        .withLastSyncBytes(lastSyncBytes)
                        .withStatus(
                                ReplicationInfo.Status.ERROR,
                                "split-brain: both sites hold a primary (promoted by force); demote and resync one");
            }
            ReplicationInfo info = ReplicationInfo.of(f.state.lastSyncTime())
                    .withLastSyncDuration(Duration.ofMillis(250))
                    .withLastSyncBytes(lastSyncBytes);
            if (f.state.source().kind() == ReplicationSource.Kind.VOLUME
                    && degradedVolumes.contains(f.state.source().id())) {
                return info.withStatus(
                        ReplicationInfo.Status.DEGRADED, "peer site lagging (marked degraded by the fixture)");
            }
            // info answers only for an enabled primary, which has synced (at enable, or at the last resync)
            return info.withStatus(ReplicationInfo.Status.HEALTHY, "");
        }
    }

    /**
     * GetReplicationDestinationInfo (upstream 2026): the destination on the other site has the same id, and a group's
     * member map names each current member (complete, as the spec requires, also after its membership changed);
     * 9 FAILED_PRECONDITION while replication is disabled.
     */
    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        Fixture f = enter(r.source(), r.secrets());
        // Read before taking the fixture: the groups' lock is never taken inside a fixture's.
        Map<String, String> members = new LinkedHashMap<>();
        if (r.source().kind() == ReplicationSource.Kind.VOLUME_GROUP) {
            groups.members(r.source().id()).forEach(m -> members.put(m, m));
        }
        synchronized (f.lock()) {
            ReferenceTransitions.requireEnabled(f);
            ReplicationSource source = f.state.source();
            return source.kind() == ReplicationSource.Kind.VOLUME_GROUP
                    ? ReplicationDestination.volumeGroup(source.id(), members)
                    : ReplicationDestination.volume(source.id());
        }
    }

    /** NodeHealer: the volume must be a fixture; healthy unless marked abnormal. */
    @Override
    public HealReport heal(HealRequest r) {
        ReplicationSource volume = ReplicationSource.volume(r.volumeId());
        enter(volume, r.secrets());
        String where = r.stagingTargetPath().map(s -> " (staged at " + s + ")").orElse("");
        if (abnormalVolumes.contains(r.volumeId())) {
            return HealReport.abnormal("volume " + r.volumeId() + " at " + r.volumePath() + where
                    + " is abnormal (marked by the fixture)");
        }
        return HealReport.healthy("volume " + r.volumeId() + " at " + r.volumePath() + where + " is healthy");
    }

    /** The volume ids NodeHealer reports abnormal. */
    public Set<String> abnormalVolumes() {
        return abnormalVolumes;
    }

    /** Every replication RPC, GetReplicationDestinationInfo included. */
    @Override
    public Set<Rpc> servedRpcs() {
        return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP);
    }

    /** The state of a fixture. */
    public SourceState state(ReplicationSource source) {
        return fixtures.state(source);
    }

    /** Every source, in creation order: the fixtures, and the groups created since (a copy). */
    public Set<ReplicationSource> sources() {
        return fixtures.sources();
    }

    /** The effect log: every applied state change, in the order applied. A copy. */
    public List<Effect> effects() {
        return fixtures.effects();
    }

    /** The effects on one source, in order. */
    public List<Effect> effects(ReplicationSource source) {
        return effects().stream().filter(e -> e.source().equals(source)).toList();
    }

    /**
     * Every fixture back to disabled and primary, the effect log cleared (in a pair, this site only); the groups created through
     * {@code volumegroup.Controller} removed, the fixture groups back and empty.
     */
    public void reset() {
        fixtures.reset(groups.reset());
    }

    /** Latency, then secrets, then existence: the order a real plugin would check them in. */
    private Fixture enter(ReplicationSource source, Secrets secrets) {
        authenticate(secrets);
        Fixture f = fixtures.get(source);
        if (f == null) {
            throw new SourceNotFoundException(source + " does not exist");
        }
        return f;
    }

    /** Latency, then secrets ({@link ReferenceGate}). */
    private void authenticate(Secrets secrets) {
        gate.pass(secrets);
    }

    // ---------------------------------------------------------------- volumegroup.Controller

    /** CreateVolumeGroup: the group of that name, a replication source of this driver from now on. */
    @Override
    public VolumeGroup create(CreateGroupRequest r) {
        authenticate(r.secrets());
        return groups.create(r, fixtures::addGroup);
    }

    @Override
    public VolumeGroup modify(ModifyGroupRequest r) {
        authenticate(r.secrets());
        return groups.modify(r);
    }

    /** DeleteVolumeGroup: 9 FAILED_PRECONDITION while its replication is enabled; the volumes are kept. */
    @Override
    public void delete(DeleteGroupRequest r) {
        authenticate(r.secrets());
        ReplicationSource source = ReplicationSource.volumeGroup(r.volumeGroupId());
        Fixture f = fixtures.get(source);
        if (f == null) {
            groups.delete(r.volumeGroupId(), id -> false); // no such group: nothing to do, 0 OK
            return;
        }
        // The fixture, then the groups: an Enable of the group cannot slip in between the check and the removal.
        synchronized (f.lock()) {
            if (groups.delete(r.volumeGroupId(), id -> f.state.enabled())) {
                fixtures.remove(source);
            }
        }
    }

    @Override
    public VolumeGroup get(GetGroupRequest r) {
        authenticate(r.secrets());
        return groups.get(r.volumeGroupId())
                .orElseThrow(
                        () -> new SourceNotFoundException("volume group " + r.volumeGroupId() + " does not exist"));
    }

    @Override
    public List<VolumeGroup> list(ListGroupsRequest r) {
        authenticate(r.secrets());
        return groups.list();
    }

    /** A volume is in at most one group; deleting a group keeps its volumes. */
    /** Every volume group RPC. */
    @Override
    public Set<VolumeGroupCapability> served() {
        return EnumSet.of(
                VolumeGroupCapability.VOLUME_GROUP,
                VolumeGroupCapability.MODIFY_VOLUME_GROUP,
                VolumeGroupCapability.GET_VOLUME_GROUP,
                VolumeGroupCapability.LIST_VOLUME_GROUPS);
    }

    @Override
    public Set<VolumeGroupCapability> behaviours() {
        return EnumSet.of(
                VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP,
                VolumeGroupCapability.DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES);
    }

    /**
     * Configures a {@link ReferenceDriver}.
     *
     * <pre>{@code
     * ReferenceDriver.builder().volumes(4).groups(1).volume("pvc-extra")
     *         .requiredSecrets(Map.of("user", "admin")).latency(Duration.ofMillis(20)).build();
     * }</pre>
     */
    public static final class Builder {
        private final Set<ReplicationSource> sources = new LinkedHashSet<>();
        private final Map<String, String> requiredSecrets = new LinkedHashMap<>();
        private final Set<String> abnormalVolumes = new LinkedHashSet<>();
        private final Set<String> degradedVolumes = new LinkedHashSet<>();
        private Duration latency = Duration.ZERO;
        private int resyncCallsUntilReady = 2;
        private Clock clock = Clock.systemUTC();
        private long lastSyncBytes = 1024;
        private Duration demotionWindow = Duration.ZERO;
        private Duration firstSyncDelay = Duration.ZERO;

        private Builder() {}

        /**
         * In a {@link ReferencePair}: for this long after a site's demote, the peer site refuses a promote without
         * force with 9 FAILED_PRECONDITION ("cannot be promoted without force yet"), as real mirroring does until the
         * demotion has reached it (RBD: 1-5 s). Default none. {@code volrep serve-reference --demotion-window}.
         */
        public Builder demotionWindow(Duration window) {
            this.demotionWindow = Arguments.requireNotNegative("demotionWindow", window);
            return this;
        }

        /**
         * For this long after an enable or a promote, GetVolumeReplicationInfo answers 5 NOT_FOUND ("details not
         * available at the moment", as its table allows): the first sync has not completed (RBD: 4-35 s). Default
         * none. {@code volrep serve-reference --first-sync-delay}.
         */
        public Builder firstSyncDelay(Duration delay) {
            this.firstSyncDelay = Arguments.requireNotNegative("firstSyncDelay", delay);
            return this;
        }

        /** Adds volumes {@code vol-0} .. {@code vol-(n-1)}. */
        public Builder volumes(int n) {
            for (int i = 0; i < n; i++) {
                sources.add(ReplicationSource.volume("vol-" + i));
            }
            return this;
        }

        /** Adds volume groups {@code grp-0} .. {@code grp-(n-1)}. */
        public Builder groups(int n) {
            for (int i = 0; i < n; i++) {
                sources.add(ReplicationSource.volumeGroup("grp-" + i));
            }
            return this;
        }

        /** Adds a volume with this id. */
        public Builder volume(String id) {
            sources.add(ReplicationSource.volume(id));
            return this;
        }

        /** Adds a volume group with this id. */
        public Builder group(String id) {
            sources.add(ReplicationSource.volumeGroup(id));
            return this;
        }

        /**
         * Marks a volume abnormal: NodeHealer reports it so (the volume must also be a fixture, else NOT_FOUND).
         */
        public Builder abnormalVolume(String id) {
            return mark(abnormalVolumes, id);
        }

        /**
         * Marks a volume's replication DEGRADED: GetVolumeReplicationInfo answers status DEGRADED with a message
         * (upstream 2026's health status); other sources report no health (UNKNOWN).
         */
        public Builder degradedVolume(String id) {
            return mark(degradedVolumes, id);
        }

        /** Adds volume {@code id} to {@code marked}: the abnormal or the degraded volumes. */
        private Builder mark(Set<String> marked, String id) {
            marked.add(Objects.requireNonNull(id, "id"));
            return this;
        }

        /** Requires this secret on every call (UNAUTHENTICATED when missing or different). */
        public Builder requiredSecret(String key, String value) {
            requiredSecrets.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Requires all these secrets on every call. */
        public Builder requiredSecrets(Map<String, String> secrets) {
            secrets.forEach(this::requiredSecret);
            return this;
        }

        /** How long every call takes (default none), e.g. to provoke ABORTED or test drains. */
        public Builder latency(Duration latency) {
            this.latency = Arguments.requireNotNegative("latency", latency);
            return this;
        }

        /** Which resync call reports ready (default 2: the first call never does). At least 1. */
        public Builder resyncCallsUntilReady(int calls) {
            this.resyncCallsUntilReady = Arguments.requireAtLeast("resyncCallsUntilReady", calls, 1);
            return this;
        }

        /** The clock of {@code last_sync_time} (default the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The {@code last_sync_bytes} info reports (default 1024). */
        public Builder lastSyncBytes(long bytes) {
            this.lastSyncBytes = Arguments.requireNotNegative("bytes", bytes);
            return this;
        }

        /** The driver. */
        public ReferenceDriver build() {
            return new ReferenceDriver(this);
        }

        /** Two sites with these settings holding one replication pair per source: see {@link ReferencePair}. */
        public ReferencePair buildPair() {
            return new ReferencePair(new ReferenceDriver(this), new ReferenceDriver(this));
        }
    }
}

package io.volrep.testkit;

import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnauthenticatedException;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh set of realistic one-defect plugins of the kinds the list-driven suite missed (issue 30): a refused call
 * that still changes the source; a source that misbehaves only when reached by a longer history; force ignored or
 * let past a precondition; answers that disagree when repeated; a transient answer that never ends; a second site
 * left behind. Each with the check (by id) that must fail; none was the model for the check that catches it.
 */
enum ExplorationDefect {
    /** Demote with wrong secrets demotes, then notices the secrets and answers 16. */
    WRONG_SECRETS_DEMOTE_STILL_DEMOTES("DemoteVolume/volume/auth-wrong") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void demote(DemoteRequest r) {
                    State s = sources.get(r.source().id());
                    if (s != null && s.enabled && !required.equals(r.secrets())) {
                        s.primary = false; // defect: changed before the check fails
                    }
                    super.demote(r);
                }
            });
        }
    },
    /** A group's disable without secrets disables, then answers 16. */
    MISSING_SECRETS_GROUP_DISABLE_STILL_DISABLES("DisableVolumeReplication/group/auth-missing") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void disable(DisableRequest r) {
                    State s = sources.get(r.source().id());
                    if (s != null
                            && r.source().kind() == Kind.VOLUME_GROUP
                            && r.secrets().isEmpty()) {
                        s.enabled = false; // defect
                        throw new UnauthenticatedException("no secrets");
                    }
                    super.disable(r);
                }
            });
        }
    },
    /** Promote of a source without replication enables it as a side effect, then answers 9. */
    REFUSED_PROMOTE_ENABLES("PromoteVolume/volume/disabled") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void promote(PromoteRequest r) {
                    State s = find(r.source(), r.secrets());
                    if (!s.enabled) {
                        s.enabled = true; // defect: the mirroring was set up first
                    }
                    if (r.force()) {
                        super.promote(r);
                        return;
                    }
                    throw new PreconditionFailedException("replication was not enabled on " + r.source());
                }
            });
        }
    },
    /** Primary again after a failover: info keeps a "primary" flag set only by enable, so it answers 9. */
    INFO_REFUSED_AFTER_FAILOVER("GetVolumeReplicationInfo/volume/primary") {
        @Override
        ConformanceConfig.Builder target() {
            Set<String> enabledAsPrimary = ConcurrentHashMap.newKeySet();
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void enable(EnableRequest r) {
                    if (!find(r.source(), r.secrets()).enabled) {
                        enabledAsPrimary.add(r.source().id());
                    }
                    super.enable(r);
                }

                @Override
                public void demote(DemoteRequest r) {
                    super.demote(r);
                    enabledAsPrimary.remove(r.source().id()); // defect: promote never sets it again
                }

                @Override
                public ReplicationInfo info(InfoRequest r) {
                    ReplicationInfo info = super.info(r);
                    if (!enabledAsPrimary.contains(r.source().id())) {
                        throw new PreconditionFailedException(r.source() + " is not promoted");
                    }
                    return info;
                }
            });
        }
    },
    /** Secondary after a resync: a "resync in progress" mark is never cleared, and a promote without force is refused. */
    PROMOTE_REFUSED_AFTER_RESYNC("PromoteVolume/volume/secondary") {
        @Override
        ConformanceConfig.Builder target() {
            Set<String> resynced = ConcurrentHashMap.newKeySet();
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public ResyncResult resync(ResyncRequest r) {
                    ResyncResult result = super.resync(r);
                    resynced.add(r.source().id()); // defect: never cleared but by force
                    return result;
                }

                @Override
                public void promote(PromoteRequest r) {
                    if (!r.force() && resynced.contains(r.source().id()) && !enabled(r.source(), r.secrets()).primary) {
                        throw new PreconditionFailedException(r.source() + " cannot be promoted without force");
                    }
                    resynced.remove(r.source().id());
                    super.promote(r);
                }

                @Override
                public void disable(DisableRequest r) {
                    super.disable(r);
                }
            });
        }
    },
    /** Enabled again after a disable: the second enable answers OK and leaves replication disabled (a stale marker). */
    REENABLE_DOES_NOTHING("EnableVolumeReplication/volume/disabled") {
        @Override
        ConformanceConfig.Builder target() {
            Set<String> disabledOnce = ConcurrentHashMap.newKeySet();
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void disable(DisableRequest r) {
                    boolean was = find(r.source(), r.secrets()).enabled;
                    super.disable(r);
                    if (was) {
                        disabledOnce.add(r.source().id());
                    }
                }

                @Override
                public void enable(EnableRequest r) {
                    if (disabledOnce.remove(r.source().id())) {
                        find(r.source(), r.secrets());
                        return; // defect: the old mirror's marker swallows it
                    }
                    super.enable(r);
                }
            });
        }
    },
    /** Force lets promote past its precondition: a source without replication is "promoted" (and enabled). */
    FORCE_PROMOTES_WITHOUT_REPLICATION("PromoteVolume/volume/disabled/force") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void promote(PromoteRequest r) {
                    if (r.force()) {
                        State s = find(r.source(), r.secrets());
                        s.enabled = true; // defect
                        s.primary = true;
                        return;
                    }
                    super.promote(r);
                }
            });
        }
    },
    /** A forced demote answers OK and changes nothing (the force path forgets to demote). */
    FORCED_DEMOTE_IGNORED("DemoteVolume/volume/primary/force") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void demote(DemoteRequest r) {
                    if (r.force()) {
                        enabled(r.source(), r.secrets()); // defect: OK, nothing done
                        return;
                    }
                    super.demote(r);
                }
            });
        }
    },
    /** Force lets resync past "not demoted": a primary is resynced (and answers ready). */
    FORCED_RESYNC_OF_PRIMARY_ACCEPTED("ResyncVolume/group/primary/force") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public ResyncResult resync(ResyncRequest r) {
                    if (r.force()) {
                        enabled(r.source(), r.secrets()); // defect: no "demoted" check when forced
                        return ResyncResult.READY;
                    }
                    return super.resync(r);
                }
            });
        }
    },
    /** A group's member map is partial on the first answer after an enable and complete later. */
    GROUP_MEMBER_MAP_PARTIAL_FIRST("GetReplicationDestinationInfo/group/consistent") {
        @Override
        ConformanceConfig.Builder target() {
            Map<String, AtomicInteger> asks = new ConcurrentHashMap<>();
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public void enable(EnableRequest r) {
                    super.enable(r);
                    asks.put(r.source().id(), new AtomicInteger());
                }

                @Override
                public ReplicationDestination destination(DestinationRequest r) {
                    enabled(r.source(), r.secrets());
                    if (r.source().kind() != Kind.VOLUME_GROUP) {
                        return SpecDriver.destinationOf(r.source());
                    }
                    boolean first = asks.computeIfAbsent(r.source().id(), k -> new AtomicInteger())
                                    .getAndIncrement()
                            == 0;
                    return first
                            ? ReplicationDestination.volumeGroup("grp-0-b", Map.of("vol-0", "vol-0-b"))
                            : ReplicationDestination.volumeGroup(
                                    "grp-0-b",
                                    Map.of(
                                            "vol-0", "vol-0-b", "vol-1",
                                            "vol-1-b")); // defect: the first map was partial
                }
            });
        }
    },
    /** A volume's destination id changes from one answer to the next (a counter in the name). */
    DESTINATION_ID_WANDERS("GetReplicationDestinationInfo/volume/consistent") {
        @Override
        ConformanceConfig.Builder target() {
            AtomicInteger n = new AtomicInteger();
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public ReplicationDestination destination(DestinationRequest r) {
                    enabled(r.source(), r.secrets());
                    return r.source().kind() == Kind.VOLUME
                            ? ReplicationDestination.volume(r.source().id() + "-b" + (n.incrementAndGet() % 2))
                            : SpecDriver.destinationOf(r.source());
                }
            });
        }
    },
    /** Info on a primary answers "details not available at the moment" for ever: a MUST is never waited out. */
    INFO_NEVER_AVAILABLE("GetVolumeReplicationInfo/volume/primary") {
        @Override
        ConformanceConfig.Builder target() {
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                public ReplicationInfo info(InfoRequest r) {
                    super.info(r);
                    if (r.source().kind() == Kind.VOLUME) {
                        throw new SourceNotFoundException("details of " + r.source() + " are not available at the"
                                + " moment"); // defect: for ever
                    }
                    return ReplicationInfo.of(Instant.now()).withStatus(ReplicationInfo.Status.HEALTHY, "");
                }
            });
        }
    },
    /** A call refused for its secrets leaves the source's operation mark set: every later call draws 10 ABORTED. */
    LOCK_LEFT_BY_UNAUTHENTICATED_CALL("PromoteVolume/volume/auth-missing") {
        @Override
        ConformanceConfig.Builder target() {
            Set<String> pending = ConcurrentHashMap.newKeySet();
            return single(new SpecDriver(Defect.SECRETS, IDS) {
                @Override
                State find(ReplicationSource source, Secrets secrets) {
                    if (pending.contains(source.id())) {
                        throw new OperationPendingException("operation pending for " + source);
                    }
                    return super.find(source, secrets);
                }

                @Override
                public void promote(PromoteRequest r) {
                    if (r.secrets().isEmpty() && r.source().kind() == Kind.VOLUME) {
                        pending.add(r.source().id()); // defect: marked, then refused, never cleared
                    }
                    super.promote(r);
                }
            });
        }
    },
    /** Two sites: the peer refuses a promote without force for ever after the other site's demote. */
    PEER_DEMOTION_WINDOW_NEVER_ENDS("two-sites/volume/round-trip") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = pair();
            return twoSites(pair.siteA(), new ForwardingReplicationDriver(pair.siteB()) {
                @Override
                public void promote(PromoteRequest r) {
                    if (!r.force() && r.source().kind() == Kind.VOLUME) {
                        throw new PreconditionFailedException(r.source() + " cannot be promoted without force yet");
                    }
                    super.promote(r);
                }
            });
        }
    },
    /** Two sites: disable on A leaves B's copy replicating (an orphan that later makes a split-brain). */
    DISABLE_LEAVES_REPLICA_ON_PEER("two-sites/group/round-trip") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = pair();
            ReferenceDriver b = pair.siteB();
            return twoSites(
                    new ForwardingReplicationDriver(pair.siteA()) {
                        @Override
                        public void disable(DisableRequest r) {
                            boolean orphan = r.source().kind() == Kind.VOLUME_GROUP
                                    && b.sources().contains(r.source())
                                    && b.state(r.source()).enabled();
                            super.disable(r);
                            if (orphan) {
                                // defect: B's copy stays enabled and secondary
                                b.enable(EnableRequest.builder()
                                        .source(r.source())
                                        .secrets(r.secrets())
                                        .build());
                                b.demote(DemoteRequest.builder()
                                        .source(r.source())
                                        .secrets(r.secrets())
                                        .build());
                            }
                        }
                    },
                    b);
        }
    },
    /** Two sites: resync of a demoted A never becomes ready, even with B primary. */
    RESYNC_NEVER_READY_WITH_PEER_PRIMARY(ControllerChecks.RESYNC_READY) {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = pair();
            return twoSites(
                    new ForwardingReplicationDriver(pair.siteA()) {
                        @Override
                        public ResyncResult resync(ResyncRequest r) {
                            super.resync(r);
                            return ResyncResult.IN_PROGRESS; // defect
                        }
                    },
                    pair.siteB());
        }

        @Override
        boolean byName() {
            return true;
        }
    },
    /** Two sites: B promotes without force while A is still primary (two primaries). SHOULD: an optional check. */
    PROMOTES_WHILE_PEER_PRIMARY("two-sites/volume/promote-while-peer-primary") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = pair();
            return twoSites(pair.siteA(), new ForwardingReplicationDriver(pair.siteB()) {
                @Override
                public void promote(PromoteRequest r) {
                    super.promote(r.toBuilder().force(true).build()); // defect: always forced
                }
            });
        }

        @Override
        boolean breaksCompliance() {
            return false;
        }
    };

    /** Six volumes: with at least {@link Exploration#FULL_TOUR_FIXTURES} volumes, every history takes every edge. */
    static final String[] IDS = {"vol-0", "vol-1", "vol-2", "vol-3", "vol-4", "vol-5", "grp-0"};

    private final String caughtBy;

    ExplorationDefect(String caughtBy) {
        this.caughtBy = caughtBy;
    }

    /** The id (or, for {@link #byName()}, the name) of the check that must fail. */
    String caughtBy() {
        return caughtBy;
    }

    /** True when {@link #caughtBy()} is a check name rather than an id. */
    boolean byName() {
        return false;
    }

    /** True when the defect breaks a MUST: the report must say "not compliant". */
    boolean breaksCompliance() {
        return true;
    }

    /** The defective target. */
    abstract ConformanceConfig.Builder target();

    static ConformanceConfig.Builder single(SpecDriver driver) {
        return fixtures(ConformanceConfig.builder().driver(driver));
    }

    static ConformanceConfig.Builder twoSites(ReplicationDriver a, ReplicationDriver b) {
        return fixtures(ConformanceConfig.builder().driver(a).peerDriver(b));
    }

    static ConformanceConfig.Builder fixtures(ConformanceConfig.Builder b) {
        return b.volumes("vol-0", "vol-1", "vol-2", "vol-3", "vol-4", "vol-5")
                .volumeGroups("grp-0")
                .secrets(Defect.SECRETS)
                .settleTimeout(Duration.ofMillis(300))
                .resyncTimeout(Duration.ofMillis(500));
    }

    /** A correct two-site reference with the demotion window and the first-sync delay of real storage, scaled down. */
    static ReferencePair pair() {
        return ReferenceDriver.builder()
                .volumes(6)
                .groups(1)
                .requiredSecrets(Defect.SECRETS)
                .demotionWindow(Duration.ofMillis(40))
                .firstSyncDelay(Duration.ofMillis(40))
                .buildPair();
    }
}

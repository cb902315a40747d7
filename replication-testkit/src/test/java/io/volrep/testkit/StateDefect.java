package io.volrep.testkit;

import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * State and sequencing defects real plugins have, one per plugin, each with the lifecycle check that must catch it:
 * locks that leak or span sources, OK answers that change nothing, state that leaks between sources or kinds,
 * codes outside the table, rules kept for volumes but not groups, sessions that outlive a request. None of them was
 * the model for a check: the walk finds them by judging behaviour in every state.
 */
enum StateDefect {
    /** An "operation pending" mark cleared only on success: after a refusal the source answers ABORTED forever. */
    LOCK_LEAKS_AFTER_REFUSAL(LifecycleChecks.SEQUENTIAL) {
        @Override
        SpecDriver driver() {
            Set<String> pending = ConcurrentHashMap.newKeySet();
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void promote(PromoteRequest r) {
                    leaky(r.source(), () -> super.promote(r));
                }

                @Override
                public void demote(DemoteRequest r) {
                    leaky(r.source(), () -> super.demote(r));
                }

                @Override
                public ResyncResult resync(ResyncRequest r) {
                    leaky(r.source(), () -> super.resync(r));
                    return new ResyncResult(sources.get(r.source().id()).resyncs >= 2);
                }

                private void leaky(ReplicationSource source, Runnable op) {
                    if (!pending.add(source.id())) {
                        throw new OperationPendingException("operation pending for " + source);
                    }
                    op.run();
                    pending.remove(source.id()); // defect: not in a finally
                }
            };
        }
    },
    /** One lock for the whole plugin, taken with tryLock: a call on another source draws ABORTED. */
    LOCK_SPANS_SOURCES(LifecycleChecks.CONCURRENT) {
        @Override
        SpecDriver driver() {
            ReentrantLock lock = new ReentrantLock();
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                State find(ReplicationSource source, Secrets secrets) {
                    if (!lock.tryLock()) {
                        throw new OperationPendingException("busy");
                    }
                    try {
                        Thread.sleep(15);
                        return super.find(source, secrets);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    } finally {
                        lock.unlock();
                    }
                }
            };
        }

        @Override
        ConformanceConfig.Builder target() {
            // Every refusal it makes is transient (the lock is held 15 ms): settled, they refuse nothing for long, and
            // the only check left to name the lock spanning sources is the one that compares with each source alone.
            return super.target().settleTimeout(Duration.ofSeconds(10));
        }
    },
    /** Promote of a secondary answers OK and leaves it secondary (the storage call is fire-and-forget). */
    PROMOTE_OK_CHANGES_NOTHING(Defect.walk(Rpc.PROMOTE_VOLUME, Kind.VOLUME, LifecycleModel.State.SECONDARY)) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void promote(PromoteRequest r) {
                    enabled(r.source(), r.secrets()); // defect: checks, answers OK, changes nothing
                }
            };
        }
    },
    /** Demote flips every enabled volume: the role is kept per plugin, not per source. */
    DEMOTE_LEAKS_TO_OTHER_VOLUMES("Isolation: a failover round trip on one volume leaves another volume's state"
            + " unchanged [volume -> volume, observed in every state]") {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void demote(DemoteRequest r) {
                    super.demote(r);
                    sources.forEach((id, s) -> {
                        if (s.enabled && id.startsWith("vol-")) {
                            s.primary = false; // defect: every enabled volume
                        }
                    });
                }
            };
        }
    },
    /** Enabling a group enables every volume too (group membership applied to all volumes). */
    GROUP_ENABLE_LEAKS_TO_VOLUMES("Isolation: a failover round trip on one volume group leaves another volume's"
            + " state unchanged [volume group -> volume, observed in every state]") {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void enable(EnableRequest r) {
                    super.enable(r);
                    if (r.source().kind() == Kind.VOLUME_GROUP) {
                        sources.forEach((id, s) -> {
                            if (id.startsWith("vol-") && !s.enabled) {
                                s.enabled = true; // defect
                                s.primary = true;
                            }
                        });
                    }
                }
            };
        }
    },
    /** Promote without replication is refused with 7 PERMISSION_DENIED: not a row of PromoteVolume's table. */
    CODE_OUTSIDE_TABLE(Defect.walk(Rpc.PROMOTE_VOLUME, Kind.VOLUME, LifecycleModel.State.DISABLED)) {
        @Override
        SpecDriver driver() {
            return SpecDriver.standard();
        }

        @Override
        ConformanceConfig.Builder target() {
            return super.target()
                    .interceptor(rewrite(
                            Rpc.PROMOTE_VOLUME,
                            Status.Code.FAILED_PRECONDITION,
                            Status.PERMISSION_DENIED.withDescription("promotion not permitted")));
        }
    },
    /** The "replication enabled" rule of promote is kept for volumes and forgotten for groups. */
    GROUP_PROMOTE_SKIPS_PRECONDITION(
            Defect.walk(Rpc.PROMOTE_VOLUME, Kind.VOLUME_GROUP, LifecycleModel.State.DISABLED)) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void promote(PromoteRequest r) {
                    if (r.source().kind() == Kind.VOLUME_GROUP) {
                        find(r.source(), r.secrets()).primary = true; // defect: no "enabled" check for groups
                        return;
                    }
                    super.promote(r);
                }
            };
        }
    },
    /** The "demoted" rule of resync is kept for volumes and forgotten for groups. */
    GROUP_RESYNC_OF_PRIMARY_ACCEPTED(Defect.walk(Rpc.RESYNC_VOLUME, Kind.VOLUME_GROUP, LifecycleModel.State.PRIMARY)) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ResyncResult resync(ResyncRequest r) {
                    if (r.source().kind() == Kind.VOLUME_GROUP) {
                        enabled(r.source(), r.secrets()); // defect: no "demoted" check for groups
                        return ResyncResult.READY;
                    }
                    return super.resync(r);
                }
            };
        }
    },
    /** After one valid call the plugin stops checking secrets (an "authenticated" flag that outlives the request). */
    SESSION_OUTLIVES_REQUEST(Defect.auth(Rpc.DEMOTE_VOLUME, Kind.VOLUME_GROUP, "wrong")) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                private volatile boolean authenticated;

                @Override
                void authenticate(Secrets secrets) {
                    if (authenticated) {
                        return; // defect
                    }
                    super.authenticate(secrets);
                    authenticated = true;
                }
            };
        }
    },
    /** Resync of a primary demotes it, then notices and answers 9: the refusal changed the state. */
    REFUSAL_CHANGES_STATE(Defect.walk(Rpc.RESYNC_VOLUME, Kind.VOLUME, LifecycleModel.State.PRIMARY)) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ResyncResult resync(ResyncRequest r) {
                    State s = enabled(r.source(), r.secrets());
                    if (s.primary) {
                        s.primary = false; // defect: changed before the check fails
                        throw new PreconditionFailedException(r.source() + " is not demoted");
                    }
                    return super.resync(r);
                }
            };
        }
    },
    /** Disable of a group answers OK and leaves replication enabled. */
    GROUP_DISABLE_OK_CHANGES_NOTHING(
            Defect.walk(Rpc.DISABLE_VOLUME_REPLICATION, Kind.VOLUME_GROUP, LifecycleModel.State.PRIMARY)) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void disable(DisableRequest r) {
                    if (r.source().kind() == Kind.VOLUME_GROUP) {
                        find(r.source(), r.secrets()); // defect: OK, nothing done
                        return;
                    }
                    super.disable(r);
                }
            };
        }
    },
    /** Enable of a secondary re-runs the setup and makes it primary: not idempotent in that state. */
    ENABLE_RESETS_SECONDARY(Defect.walk(Rpc.ENABLE_VOLUME_REPLICATION, Kind.VOLUME, LifecycleModel.State.SECONDARY)) {
        @Override
        SpecDriver driver() {
            return new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void enable(EnableRequest r) {
                    State s = find(r.source(), r.secrets());
                    s.enabled = true;
                    s.primary = true; // defect: even when it was secondary
                }
            };
        }
    };

    private final String caughtBy;

    StateDefect(String caughtBy) {
        this.caughtBy = caughtBy;
    }

    /** The name of the check that must fail. */
    String caughtBy() {
        return caughtBy;
    }

    /** The defective driver. */
    abstract SpecDriver driver();

    /** The defective target with the standard fixtures (vol-0, vol-1, grp-0, secret user=admin). */
    ConformanceConfig.Builder target() {
        return Defect.driver(driver());
    }

    /** Answers {@code replacement} where the runtime would have answered {@code code} to {@code rpc}. */
    static ServerInterceptor rewrite(Rpc rpc, Status.Code code, Status replacement) {
        return Defect.rewrite(rpc, UnaryOperator.identity(), s -> s.getCode() == code ? replacement : s);
    }
}

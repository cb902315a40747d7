package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MapEntry;
import com.google.protobuf.Message;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.UnknownErrorException;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * One-defect plugins a kit that judges answers one at a time misses (issue 47): answers that disagree over time,
 * refusals with side effects, codes outside the table behind an optional check, a call that breaks only when repeated
 * or interleaved, a leak to other sources found only when every fixture is watched, secrets echoed, destinations
 * shared or swapped, a peer site changed by the calls on the other. Each with the check (by id) that must fail, at the
 * level it must fail at.
 */
enum SecondLookDefect {
    /** Every other Info answers a last sync time an hour earlier than the one before. */
    LAST_SYNC_TIME_GOES_BACK("GetVolumeReplicationInfo/volume/last-sync-time-over-time") {
        @Override
        ConformanceConfig.Builder target() {
            AtomicInteger n = new AtomicInteger();
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ReplicationInfo info(InfoRequest r) {
                    ReplicationInfo info = super.info(r);
                    return n.incrementAndGet() % 2 == 0
                            ? ReplicationInfo.of(Instant.now().minus(Duration.ofHours(1)))
                                    .withStatus(ReplicationInfo.Status.HEALTHY, "")
                            : info;
                }
            });
        }
    },
    /** Info answers a last sync time three hours ahead of every clock. */
    LAST_SYNC_TIME_IN_THE_FUTURE("GetVolumeReplicationInfo/volume/last-sync-time-over-time") {
        @Override
        ConformanceConfig.Builder target() {
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ReplicationInfo info(InfoRequest r) {
                    super.info(r);
                    return ReplicationInfo.of(Instant.now().plus(Duration.ofHours(3)))
                            .withStatus(ReplicationInfo.Status.HEALTHY, "");
                }
            });
        }
    },
    /**
     * Info answers the last second of year 9999: valid on the wire, 8,000 years ahead of every clock (more
     * nanoseconds than a long holds: the kit once stopped its exploration on it with "long overflow").
     */
    LAST_SYNC_TIME_IN_YEAR_9999("GetVolumeReplicationInfo/volume/last-sync-time-over-time") {
        @Override
        ConformanceConfig.Builder target() {
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ReplicationInfo info(InfoRequest r) {
                    super.info(r);
                    return ReplicationInfo.of(Instant.parse("9999-12-31T23:59:59.999999999Z"))
                            .withStatus(ReplicationInfo.Status.HEALTHY, "");
                }
            });
        }
    },
    /** Info answers the zero timestamp (1970) where it has no sync time yet, instead of 5 "not available". */
    LAST_SYNC_TIME_ZERO("GetVolumeReplicationInfo/volume/last-sync-time-over-time") {
        @Override
        ConformanceConfig.Builder target() {
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ReplicationInfo info(InfoRequest r) {
                    super.info(r);
                    return ReplicationInfo.of(Instant.EPOCH).withStatus(ReplicationInfo.Status.HEALTHY, "");
                }
            });
        }
    },
    /** An Enable with parameters over 4 KiB is refused with 3, and enables the volume all the same. */
    REFUSED_OVERSIZED_ENABLE_ENABLES("EnableVolumeReplication/volume/parameters-over-limit") {
        @Override
        ConformanceConfig.Builder target() {
            SpecDriver driver = new SpecDriver(Defect.SECRETS, Defect.IDS);
            return Defect.driver(driver).interceptor(new ServerInterceptor() {
                @Override
                public <Q, A> ServerCall.Listener<Q> interceptCall(
                        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                    ServerCall.Listener<Q> listener = next.startCall(call, headers);
                    if (!call.getMethodDescriptor().getBareMethodName().equals("EnableVolumeReplication")) {
                        return listener;
                    }
                    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
                        @Override
                        public void onMessage(Q message) {
                            Message m = (Message) message;
                            FieldDescriptor params = m.getDescriptorForType().findFieldByName("parameters");
                            boolean oversized = ((List<?>) m.getField(params))
                                    .stream()
                                            .anyMatch(e -> String.valueOf(((MapEntry<?, ?>) e).getValue())
                                                            .length()
                                                    > 4000);
                            if (oversized) {
                                // defect: the oversized request is refused (by the runtime), after enabling it
                                sourceOf(m).ifPresent(id -> {
                                    SpecDriver.State s = driver.sources.get(id);
                                    if (s != null) {
                                        s.enabled = true;
                                    }
                                });
                            }
                            super.onMessage(message);
                        }
                    };
                }
            });
        }

        @Override
        Requirement level() {
            return Requirement.REQUIRED; // an optional check, failing a MUST
        }
    },
    /** A second Enable while one is pending answers 6 ALREADY_EXISTS, no row of Enable's table. */
    CONCURRENT_ENABLE_ALREADY_EXISTS("EnableVolumeReplication/volume/simultaneous-calls") {
        @Override
        ConformanceConfig.Builder target() {
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                        @Override
                        public void enable(EnableRequest r) {
                            slow(); // long enough for the simultaneous calls to meet
                            super.enable(r);
                        }
                    })
                    .interceptor(Defect.rewrite(
                            Rpc.ENABLE_VOLUME_REPLICATION,
                            UnaryOperator.identity(),
                            s -> s.getCode() == Status.Code.ABORTED
                                    ? Status.ALREADY_EXISTS.withDescription("replication is being enabled")
                                    : s));
        }

        @Override
        Requirement level() {
            return Requirement.REQUIRED;
        }
    },
    /** Two sites: a promote without force on B, refused while A is primary, demotes A as it refuses. */
    REFUSED_PROMOTE_ON_B_DEMOTES_A("two-sites/volume/promote-while-peer-primary") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = ExplorationDefect.pair();
            ReferenceDriver a = pair.siteA();
            return ExplorationDefect.twoSites(a, new ForwardingReplicationDriver(pair.siteB()) {
                @Override
                public void promote(PromoteRequest r) {
                    if (!r.force()
                            && r.source().kind() == Kind.VOLUME
                            && a.state(r.source()).enabled()
                            && a.state(r.source()).role() == ReferenceDriver.Role.PRIMARY) {
                        a.demote(DemoteRequest.builder()
                                .source(r.source())
                                .secrets(r.secrets())
                                .build());
                        throw new PreconditionFailedException(r.source() + " cannot be promoted without force");
                    }
                    super.promote(r);
                }
            });
        }

        @Override
        Requirement level() {
            return Requirement.REQUIRED;
        }
    },
    /** A call refused with 10 because another is pending on the source is applied once the first ends. */
    REFUSED_CALL_APPLIED_LATER("isolation/volume/interleaved-calls") {
        @Override
        ConformanceConfig.Builder target() {
            SpecDriver driver = new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void demote(DemoteRequest r) {
                    slow();
                    super.demote(r);
                }

                @Override
                public void promote(PromoteRequest r) {
                    slow();
                    super.promote(r);
                }

                @Override
                public void enable(EnableRequest r) {
                    slow();
                    super.enable(r);
                }

                @Override
                public void disable(DisableRequest r) {
                    slow();
                    super.disable(r);
                }
            };
            return Defect.driver(driver).interceptor(new LaterApplied(driver));
        }
    },
    /** The third identical Enable in a row (a counter of enables that runs out) turns the volume secondary. */
    BREAKS_ON_THIRD_ENABLE("EnableVolumeReplication/volume/repeated") {
        @Override
        ConformanceConfig.Builder target() {
            Map<String, AtomicInteger> enables = new ConcurrentHashMap<>();
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public void enable(EnableRequest r) {
                    find(r.source(), r.secrets());
                    super.enable(r);
                    if (enables.computeIfAbsent(r.source().id(), k -> new AtomicInteger())
                                    .incrementAndGet()
                            == 3) {
                        sources.get(r.source().id()).primary = false; // defect
                    }
                }

                @Override
                public void disable(DisableRequest r) {
                    super.disable(r);
                    enables.remove(r.source().id());
                }

                @Override
                public void promote(PromoteRequest r) {
                    super.promote(r);
                    enables.remove(r.source().id());
                }

                @Override
                public void demote(DemoteRequest r) {
                    super.demote(r);
                    enables.remove(r.source().id());
                }
            });
        }
    },
    /** A demote of vol-1 demotes every enabled volume whose id begins with vol-1 (vol-10 to vol-15): a prefix match. */
    DEMOTE_PREFIX_MATCH("isolation/volume/round-trip-spares-volume") {
        @Override
        ConformanceConfig.Builder target() {
            String[] ids = IntStream.range(0, 16).mapToObj(i -> "vol-" + i).toArray(String[]::new);
            List<String> all = new ArrayList<>(List.of(ids));
            all.add("grp-0");
            SpecDriver driver = new SpecDriver(Defect.SECRETS, all.toArray(String[]::new)) {
                @Override
                public void demote(DemoteRequest r) {
                    super.demote(r);
                    sources.forEach((id, s) -> {
                        if (s.enabled
                                && id.startsWith(r.source().id())
                                && r.source().kind() == Kind.VOLUME) {
                            s.primary = false; // defect: by prefix
                        }
                    });
                }
            };
            return Defect.driver(driver).volumes(List.of(ids).subList(2, 16)).settleTimeout(Duration.ofMillis(300));
        }

        @Override
        String mustName() {
            return "DemoteVolume on volume vol-1 (replication enabled, primary) changed volume vol-1";
        }
    },
    /** Error messages repeat the request's secrets (the answers are otherwise right). */
    SECRETS_ECHOED("response-validity/plugin/secrets-not-echoed") {
        @Override
        ConformanceConfig.Builder target() {
            return Defect.driver(new SpecDriver(LONG_SECRETS, Defect.IDS))
                    .secrets(LONG_SECRETS)
                    .interceptor(new EchoSecrets());
        }

        @Override
        boolean onlyFail() {
            return true;
        }
    },
    /** Every volume answers vol-1's destination. */
    SHARED_DESTINATION("response-validity/all-fixtures/distinct-destinations") {
        @Override
        ConformanceConfig.Builder target() {
            return Defect.driver(new SpecDriver(Defect.SECRETS, Defect.IDS) {
                @Override
                public ReplicationDestination destination(DestinationRequest r) {
                    enabled(r.source(), r.secrets());
                    return r.source().kind() == Kind.VOLUME
                            ? ReplicationDestination.volume("vol-1-b")
                            : SpecDriver.destinationOf(r.source());
                }
            });
        }
    },
    /** A group's member map names its first two members' destinations swapped. */
    GROUP_MEMBER_MAP_SWAPPED(VolumeGroupLifecycleChecks.ID) {
        @Override
        ConformanceConfig.Builder target() {
            ReferenceDriver reference = ReferenceDriver.builder()
                    .volumes(2)
                    .groups(1)
                    .requiredSecrets(Defect.SECRETS)
                    .build();
            return VolumeGroupConformanceTest.config(
                    new ForwardingReplicationDriver(reference) {
                        @Override
                        public ReplicationDestination destination(DestinationRequest r) {
                            ReplicationDestination d = super.destination(r);
                            if (!(d instanceof ReplicationDestination.VolumeGroup g)
                                    || g.volumeIds().size() < 2) {
                                return d;
                            }
                            List<String> members = new ArrayList<>(g.volumeIds().keySet());
                            Map<String, String> swapped = new LinkedHashMap<>(g.volumeIds());
                            swapped.put(members.get(0), g.volumeIds().get(members.get(1)));
                            swapped.put(members.get(1), g.volumeIds().get(members.get(0)));
                            return ReplicationDestination.volumeGroup(g.volumeGroupId(), swapped); // defect
                        }
                    },
                    reference);
        }
    },
    /** Two sites: an Enable on B's replica, secondary, makes it a second primary. */
    ENABLE_ON_B_MAKES_SECOND_PRIMARY("two-sites/volume/round-trip") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = ExplorationDefect.pair();
            ReferenceDriver b = pair.siteB();
            return ExplorationDefect.twoSites(pair.siteA(), new ForwardingReplicationDriver(b) {
                @Override
                public void enable(EnableRequest r) {
                    boolean wasSecondary = r.source().kind() == Kind.VOLUME
                            && b.state(r.source()).enabled()
                            && b.state(r.source()).role() == ReferenceDriver.Role.SECONDARY;
                    super.enable(r);
                    if (wasSecondary) {
                        super.promote(PromoteRequest.builder()
                                .source(r.source())
                                .secrets(r.secrets())
                                .force(true)
                                .build()); // defect
                    }
                }
            });
        }
    },
    /** Two sites: a disable of A within a second of its enable (the first sync) leaves B's copy replicating. */
    DISABLE_DURING_FIRST_SYNC_LEAVES_ORPHAN("two-sites/volume/round-trip") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = ExplorationDefect.pair();
            ReferenceDriver b = pair.siteB();
            Map<ReplicationSource, Instant> enabledAt = new ConcurrentHashMap<>();
            return ExplorationDefect.twoSites(
                    new ForwardingReplicationDriver(pair.siteA()) {
                        @Override
                        public void enable(EnableRequest r) {
                            super.enable(r);
                            enabledAt.putIfAbsent(r.source(), Instant.now());
                        }

                        @Override
                        public void disable(DisableRequest r) {
                            Instant since = enabledAt.remove(r.source());
                            super.disable(r);
                            if (r.source().kind() == Kind.VOLUME
                                    && since != null
                                    && Duration.between(since, Instant.now()).compareTo(Duration.ofSeconds(1)) < 0) {
                                // defect: the peer's copy, still being created, stays
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
    /** Two sites: B's demote answers OK and changes nothing (the failback then finds B still primary). */
    B_DEMOTE_DOES_NOTHING("two-sites/volume/round-trip") {
        @Override
        ConformanceConfig.Builder target() {
            ReferencePair pair = ExplorationDefect.pair();
            ReferenceDriver b = pair.siteB();
            return ExplorationDefect.twoSites(pair.siteA(), new ForwardingReplicationDriver(b) {
                @Override
                public void demote(DemoteRequest r) {
                    if (r.source().kind() == Kind.VOLUME && b.state(r.source()).enabled()) {
                        return; // defect: OK, nothing done
                    }
                    super.demote(r);
                }
            });
        }

        @Override
        String mustName() {
            return "after DemoteVolume on B";
        }
    };

    /** Secrets long enough to be looked for in every answer ({@link EchoWatch#MIN_LENGTH}). */
    static final Map<String, String> LONG_SECRETS = Map.of("user", "admin-of-the-array", "password", "Sup3r-s3cret");

    private final String caughtBy;

    SecondLookDefect(String caughtBy) {
        this.caughtBy = caughtBy;
    }

    /** The id of the check that must fail (or not run because of a check that failed). */
    String caughtBy() {
        return caughtBy;
    }

    /** The level the check must fail at: an optional check fails as a required one when it finds a MUST broken. */
    Requirement level() {
        return Requirement.REQUIRED;
    }

    /** Text the failure must hold: the call it names. */
    String mustName() {
        return "";
    }

    /** True when the defect must be the run's only FAIL. */
    boolean onlyFail() {
        return false;
    }

    /** The defective target. */
    abstract ConformanceConfig.Builder target();

    /** The source a request names (by its replication_source), if any. */
    static Optional<String> sourceOf(Message m) {
        FieldDescriptor source = m.getDescriptorForType().findFieldByName("replication_source");
        if (source == null || !m.hasField(source)) {
            return Optional.empty();
        }
        io.volrep.proto.replication.ReplicationSource s =
                (io.volrep.proto.replication.ReplicationSource) m.getField(source);
        return s.hasVolume()
                ? Optional.of(s.getVolume().getVolumeId())
                : s.hasVolumegroup() ? Optional.of(s.getVolumegroup().getVolumeGroupId()) : Optional.empty();
    }

    private static void slow() {
        try {
            Thread.sleep(30);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnknownErrorException("interrupted");
        }
    }

    /**
     * Answers 10 ABORTED to a mutating call on a source while another is in flight, and applies it once that one
     * ends: a refused call that takes effect later.
     */
    static final class LaterApplied implements ServerInterceptor {
        private static final Set<String> MUTATING =
                Set.of("EnableVolumeReplication", "DisableVolumeReplication", "PromoteVolume", "DemoteVolume");
        private final SpecDriver driver;
        private final Map<String, List<String>> queued = new ConcurrentHashMap<>();

        LaterApplied(SpecDriver driver) {
            this.driver = driver;
        }

        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(
                ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            String method = call.getMethodDescriptor().getBareMethodName();
            if (!MUTATING.contains(method)) {
                return next.startCall(call, headers);
            }
            call.request(1);
            return new ServerCall.Listener<>() {
                @Override
                public void onMessage(Q message) {
                    String id = sourceOf((Message) message).orElse("");
                    synchronized (queued) {
                        if (queued.containsKey(id)) {
                            queued.get(id).add(method); // defect: refused now, applied when the first ends
                            call.close(Status.ABORTED.withDescription("operation pending for " + id), new Metadata());
                            return;
                        }
                        queued.put(id, new ArrayList<>());
                    }
                    ServerCall<Q, A> forwarded = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                        @Override
                        public void close(Status status, Metadata trailers) {
                            List<String> later;
                            synchronized (queued) {
                                later = queued.remove(id);
                            }
                            SpecDriver.State s = driver.sources.get(id);
                            if (later != null && s != null) {
                                later.forEach(m -> apply(m, s));
                            }
                            super.close(status, trailers);
                        }
                    };
                    ServerCall.Listener<Q> inner = next.startCall(forwarded, headers);
                    inner.onMessage(message);
                    inner.onHalfClose();
                }
            };
        }

        private static void apply(String method, SpecDriver.State s) {
            switch (method) {
                case "EnableVolumeReplication" -> {
                    if (!s.enabled) {
                        s.enabled = true;
                        s.primary = true;
                    }
                }
                case "DisableVolumeReplication" -> {
                    s.enabled = false;
                    s.primary = true;
                }
                case "PromoteVolume" -> s.primary = s.enabled || s.primary;
                case "DemoteVolume" -> s.primary = !s.enabled && s.primary;
                default -> {}
            }
        }
    }

    /** Appends the request's secrets to every error's description. */
    static final class EchoSecrets implements ServerInterceptor {
        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(
                ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            StringBuilder echoed = new StringBuilder();
            ServerCall<Q, A> echoing = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                @Override
                public void close(Status status, Metadata trailers) {
                    super.close(
                            status.isOk()
                                    ? status
                                    : status.withDescription(
                                            status.getDescription() + " (request secrets: " + echoed + ")"),
                            trailers);
                }
            };
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                    next.startCall(echoing, headers)) {
                @Override
                public void onMessage(Q message) {
                    Message m = (Message) message;
                    FieldDescriptor secrets = m.getDescriptorForType().findFieldByName("secrets");
                    if (secrets != null) {
                        for (Object entry : (List<?>) m.getField(secrets)) {
                            MapEntry<?, ?> e = (MapEntry<?, ?>) entry;
                            echoed.append(e.getKey())
                                    .append('=')
                                    .append(e.getValue())
                                    .append(' ');
                        }
                    }
                    super.onMessage(message);
                }
            };
        }
    }
}

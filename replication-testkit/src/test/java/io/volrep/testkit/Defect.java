package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.CsiLimits;
import io.volrep.api.ErrorScheme;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnimplementedException;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.fake.InfoViolation;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Plugins with exactly one spec defect each, and the check that must catch it. Driver defects go through
 * the real SPI runtime; defects the runtime would prevent (it validates requests and responses) are
 * injected below it with an interceptor.
 */
enum Defect {
    PROMOTE_WITHOUT_REPLICATION(walk(Rpc.PROMOTE_VOLUME, Kind.VOLUME, LifecycleModel.State.DISABLED)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public void promote(PromoteRequest r) {
                    find(r.source(), r.secrets()).primary = true; // defect: no "enabled" check
                }
            });
        }
    },
    DEMOTE_UNKNOWN_SOURCE_ANSWERS_UNKNOWN(ControllerChecks.rowCase(
            Rpc.DEMOTE_VOLUME, StatusCode.NOT_FOUND, "volume " + ControllerChecks.MISSING_VOLUME)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public void demote(DemoteRequest r) {
                    if (!sources.containsKey(r.source().id())) {
                        throw new IllegalStateException("no such image"); // defect: runtime maps it to 2 UNKNOWN
                    }
                    super.demote(r);
                }
            });
        }
    },
    RESYNC_OF_PRIMARY_ACCEPTED(walk(Rpc.RESYNC_VOLUME, Kind.VOLUME, LifecycleModel.State.PRIMARY)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public ResyncResult resync(ResyncRequest r) {
                    enabled(r.source(), r.secrets()); // defect: no "demoted" check
                    return ResyncResult.READY;
                }
            });
        }
    },
    INFO_OF_DEMOTED_ANSWERED(walk(Rpc.GET_VOLUME_REPLICATION_INFO, Kind.VOLUME, LifecycleModel.State.SECONDARY)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public ReplicationInfo info(InfoRequest r) {
                    enabled(r.source(), r.secrets()); // defect: no "promoted" check
                    return ReplicationInfo.of(Instant.now());
                }
            });
        }
    },
    ENABLE_NOT_IDEMPOTENT(walk(Rpc.ENABLE_VOLUME_REPLICATION, Kind.VOLUME, LifecycleModel.State.PRIMARY)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public void enable(EnableRequest r) {
                    State s = find(r.source(), r.secrets());
                    if (s.enabled) {
                        throw new PreconditionFailedException("already enabled"); // defect
                    }
                    super.enable(r);
                }
            });
        }
    },
    DEMOTE_NOT_IDEMPOTENT(walk(Rpc.DEMOTE_VOLUME, Kind.VOLUME, LifecycleModel.State.SECONDARY)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public void demote(DemoteRequest r) {
                    if (!enabled(r.source(), r.secrets()).primary) {
                        throw new PreconditionFailedException("already secondary"); // defect
                    }
                    super.demote(r);
                }
            });
        }
    },
    DISABLE_NOT_IDEMPOTENT(walk(Rpc.DISABLE_VOLUME_REPLICATION, Kind.VOLUME, LifecycleModel.State.DISABLED)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public void disable(DisableRequest r) {
                    enabled(r.source(), r.secrets()); // defect: disabled twice -> 9
                    super.disable(r);
                }
            });
        }
    },
    SECRETS_IGNORED(auth(Rpc.PROMOTE_VOLUME, Kind.VOLUME, "wrong")) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(Map.of(), IDS)); // defect: requires nothing
        }
    },
    MISSING_SECRETS_ACCEPTED(auth(Rpc.DEMOTE_VOLUME, Kind.VOLUME, "missing")) {
        @Override
        ConformanceConfig.Builder target() {
            // Defect: a request without secrets is served as if it carried the right ones.
            return driver(SpecDriver.standard()).interceptor(new RequestDefect() {
                @Override
                Decision decide(Rpc rpc, Message request) {
                    FieldDescriptor secrets = request.getDescriptorForType().findFieldByName("secrets");
                    if (request.getRepeatedFieldCount(secrets) > 0) {
                        return Decision.pass(request);
                    }
                    Message.Builder b = request.toBuilder();
                    Message.Builder entry = b.newBuilderForField(secrets);
                    entry.setField(entry.getDescriptorForType().findFieldByName("key"), "user");
                    entry.setField(entry.getDescriptorForType().findFieldByName("value"), "admin");
                    b.addRepeatedField(secrets, entry.build());
                    return Decision.pass(b.build());
                }
            });
        }
    },
    INFO_WITHOUT_LAST_SYNC_TIME(ControllerChecks.LAST_SYNC_TIME) {
        @Override
        ConformanceConfig.Builder target() {
            // Below the runtime, which would reject a driver's info without last_sync_time.
            return driver(SpecDriver.standard())
                    .interceptor(new FaultInjector().violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME));
        }
    },
    INFO_NEGATIVE_BYTES(ControllerChecks.LAST_SYNC_BYTES) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(SpecDriver.standard())
                    .interceptor(new FaultInjector().violateInfo(InfoViolation.NEGATIVE_LAST_SYNC_BYTES));
        }
    },
    INFO_STATUS_OUTSIDE_THE_ENUM(ControllerChecks.HEALTH_STATUS) {
        @Override
        ConformanceConfig.Builder target() {
            // Below the runtime, whose typed status cannot express a number outside the enum.
            return driver(SpecDriver.standard())
                    .interceptor(rewriteResponse(
                            Rpc.GET_VOLUME_REPLICATION_INFO,
                            m -> ((GetVolumeReplicationInfoResponse) m)
                                    .toBuilder().setStatusValue(7).build()));
        }
    },
    INFO_NEGATIVE_DURATION(ControllerChecks.LAST_SYNC_DURATION) {
        @Override
        ConformanceConfig.Builder target() {
            // Below the runtime, whose ReplicationInfo refuses a negative duration; volrep's client rejects it too.
            return driver(SpecDriver.standard())
                    .interceptor(new FaultInjector().violateInfo(InfoViolation.NEGATIVE_LAST_SYNC_DURATION));
        }
    },
    DESTINATION_ID_OVER_128_BYTES(ControllerChecks.DESTINATION_VOLUME) {
        @Override
        ConformanceConfig.Builder target() {
            // Below the runtime, which bounds a driver's ids by CSI's limits as it bounds a request's.
            return driver(SpecDriver.standard())
                    .interceptor(rewriteResponse(
                            Rpc.GET_REPLICATION_DESTINATION_INFO,
                            m -> destination(m).hasVolume() ? volumeDestination("d".repeat(129)) : m));
        }
    },
    IDENTITY_NAME_NOT_A_DOMAIN_NAME(IdentityChecks.NAME) {
        @Override
        ConformanceConfig.Builder target() {
            // Below the runtime, which refuses such a name at configuration.
            return driver(SpecDriver.standard())
                    .interceptor(rewriteResponse(
                            Rpc.GET_IDENTITY,
                            m -> ((GetIdentityResponse) m)
                                    .toBuilder().setName("rbd_csi.example.com").build()));
        }
    },
    DESTINATION_EMPTY_VOLUME_ID(ControllerChecks.DESTINATION_VOLUME) {
        @Override
        ConformanceConfig.Builder target() {
            // Below the runtime, which rejects a driver's empty id.
            return driver(SpecDriver.standard())
                    .interceptor(rewriteResponse(
                            Rpc.GET_REPLICATION_DESTINATION_INFO,
                            m -> destination(m).hasVolume() ? volumeDestination("") : m));
        }
    },
    DESTINATION_OF_A_GROUP_IS_A_VOLUME(ControllerChecks.DESTINATION_GROUP) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(SpecDriver.standard())
                    .interceptor(rewriteResponse(
                            Rpc.GET_REPLICATION_DESTINATION_INFO,
                            m -> destination(m).hasVolumegroup()
                                    ? volumeDestination(
                                            destination(m).getVolumegroup().getVolumeGroupId())
                                    : m));
        }
    },
    DESTINATION_MEMBER_WITHOUT_ID(ControllerChecks.DESTINATION_GROUP) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(SpecDriver.standard())
                    .interceptor(rewriteResponse(Rpc.GET_REPLICATION_DESTINATION_INFO, m -> {
                        if (!destination(m).hasVolumegroup()) {
                            return m;
                        }
                        var b = ((GetReplicationDestinationInfoResponse) m).toBuilder();
                        b.getReplicationDestinationBuilder()
                                .getVolumegroupBuilder()
                                .putVolumeIds("vol-0", "");
                        return b.build();
                    }));
        }
    },
    DESTINATION_BEFORE_ENABLE(
            walk(Rpc.GET_REPLICATION_DESTINATION_INFO, Kind.VOLUME_GROUP, LifecycleModel.State.DISABLED)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public io.volrep.api.ReplicationDestination destination(DestinationRequest r) {
                    find(r.source(), r.secrets()); // defect: no "enabled" check
                    return SpecDriver.destinationOf(r.source());
                }
            });
        }
    },
    DESTINATION_NEVER_KNOWN(walk(Rpc.GET_REPLICATION_DESTINATION_INFO, Kind.VOLUME, LifecycleModel.State.PRIMARY)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public io.volrep.api.ReplicationDestination destination(DestinationRequest r) {
                    enabled(r.source(), r.secrets());
                    throw new UnavailableException("destination not known yet"); // defect: forever
                }
            });
        }
    },
    ADVERTISED_DESTINATION_UNIMPLEMENTED(IdentityChecks.ADVERTISED_SERVED) {
        @Override
        ConformanceConfig.Builder target() {
            // Defect: the driver declares GetReplicationDestinationInfo (so Identity advertises it) but its backend
            // cannot answer it.
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public io.volrep.api.ReplicationDestination destination(DestinationRequest r) {
                    throw new UnimplementedException("the array has no destination API");
                }
            });
        }
    },
    MISSING_SOURCE_ACCEPTED(ControllerChecks.rowCase(
            Rpc.ENABLE_VOLUME_REPLICATION,
            StatusCode.INVALID_ARGUMENT,
            Addressing.none().label())) {
        @Override
        ConformanceConfig.Builder target() {
            // Defect below the runtime (which validates): a request naming no source is answered OK.
            return driver(SpecDriver.standard()).interceptor(new RequestDefect() {
                @Override
                Decision decide(Rpc rpc, Message request) {
                    var type = request.getDescriptorForType();
                    boolean named = request.hasField(type.findFieldByName("replication_source"))
                            || !request.getField(type.findFieldByName("volume_id"))
                                    .toString()
                                    .isEmpty();
                    return named ? Decision.pass(request) : Decision.ok();
                }
            });
        }
    },
    ENABLE_UNIMPLEMENTED(walk(Rpc.ENABLE_VOLUME_REPLICATION, Kind.VOLUME, LifecycleModel.State.DISABLED)) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(new SpecDriver(SECRETS, IDS) {
                @Override
                public void enable(EnableRequest r) {
                    throw new UnimplementedException("no replication here"); // defect: enable is a MUST
                }
            });
        }
    },
    DEPRECATED_VOLUME_ID_REJECTED(ControllerChecks.FORM_DEPRECATED) {
        @Override
        ConformanceConfig.Builder target() {
            return driver(SpecDriver.standard()).interceptor(new RequestDefect() {
                @Override
                Decision decide(Rpc rpc, Message request) {
                    var type = request.getDescriptorForType();
                    return request.hasField(type.findFieldByName("replication_source"))
                            ? Decision.pass(request)
                            : Decision.answer(
                                    Status.INVALID_ARGUMENT.withDescription("replication_source is required"));
                }
            });
        }

        @Override
        boolean breaksCompliance() {
            return false; // the deprecated form is OPTIONAL: an optional check
        }
    },
    SIMULTANEOUS_CALLS_ANSWER_UNKNOWN(ControllerChecks.rowCase(
            Rpc.PROMOTE_VOLUME,
            StatusCode.ABORTED,
            ControllerChecks.SIMULTANEOUS_CALLS + " simultaneous calls answer only 0 OK or 10 ABORTED")) {
        @Override
        ConformanceConfig.Builder target() {
            // Defect below the runtime's per-source guard: a plugin busy with a source answers 2 UNKNOWN instead
            // of 10 ABORTED to another call for that source (per source: calls on other sources are served). A
            // call is busy from its request until its answer, whatever the answer.
            Set<String> inFlight = ConcurrentHashMap.newKeySet();
            ServerInterceptor busy = new ServerInterceptor() {
                @Override
                public <Q, A> ServerCall.Listener<Q> interceptCall(
                        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                    if (!call.getMethodDescriptor().getBareMethodName().equals(Rpc.PROMOTE_VOLUME.methodName())) {
                        return next.startCall(call, headers);
                    }
                    String[] key = new String[1];
                    ServerCall<Q, A> forgetting = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                        @Override
                        public void close(Status status, Metadata trailers) {
                            if (key[0] != null) {
                                inFlight.remove(key[0]);
                            }
                            super.close(status, trailers);
                        }
                    };
                    ServerCall.Listener<Q> delegate = next.startCall(forgetting, headers);
                    return new SimpleForwardingServerCallListener<>(delegate) {
                        @Override
                        public void onMessage(Q message) {
                            var source = (ReplicationSource) ((Message) message)
                                    .getField(((Message) message)
                                            .getDescriptorForType()
                                            .findFieldByName("replication_source"));
                            String k = source.getVolume().getVolumeId() + "/"
                                    + source.getVolumegroup().getVolumeGroupId();
                            if (!k.equals("/") && !inFlight.add(k)) {
                                forgetting.close(Status.UNKNOWN.withDescription("busy"), new Metadata());
                                return;
                            }
                            key[0] = k.equals("/") ? null : k;
                            super.onMessage(message);
                        }
                    };
                }
            };
            return driver(new SpecDriver(SECRETS, IDS) {
                        @Override
                        public void promote(PromoteRequest r) {
                            try {
                                Thread.sleep(20);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            super.promote(r);
                        }
                    })
                    .interceptor(busy);
        }

        @Override
        boolean breaksCompliance() {
            return false; // SHOULD: an optional check
        }
    },
    OVERSIZED_ID_LOOKED_UP(
            ControllerChecks.rowCase(Rpc.DEMOTE_VOLUME, StatusCode.INVALID_ARGUMENT, ControllerChecks.ID_OVER_LIMIT)) {
        @Override
        ConformanceConfig.Builder target() {
            // Defect below the runtime's validation: an id over CSI's 128 bytes is looked up as any other and
            // answers 5 NOT_FOUND, where the malformed request deserves 3 INVALID_ARGUMENT.
            return driver(SpecDriver.standard()).interceptor(new RequestDefect() {
                @Override
                Decision decide(Rpc rpc, Message request) {
                    var source = (ReplicationSource)
                            request.getField(request.getDescriptorForType().findFieldByName("replication_source"));
                    return CsiLimits.utf8Length(source.getVolume().getVolumeId()) > CsiLimits.MAX_STRING_BYTES
                            ? Decision.answer(Status.NOT_FOUND.withDescription("no such volume"))
                            : Decision.pass(request);
                }
            });
        }

        @Override
        boolean breaksCompliance() {
            return false; // CSI's limits, inherited without restating: an optional check
        }
    };

    static final Map<String, String> SECRETS = Map.of("user", "admin");
    static final String[] IDS = {"vol-0", "vol-1", "grp-0"};

    private final String caughtBy;

    Defect(String caughtBy) {
        this.caughtBy = caughtBy;
    }

    /** The name of the check that must fail. */
    String caughtBy() {
        return caughtBy;
    }

    /** True when the defect violates a MUST: the report must say "not compliant". */
    boolean breaksCompliance() {
        return true;
    }

    /** The defective target with the standard fixtures. */
    abstract ConformanceConfig.Builder target();

    /** The name of the lifecycle walk's check of {@code rpc} in {@code state} for {@code kind}. */
    static String walk(Rpc rpc, Kind kind, LifecycleModel.State state) {
        return LifecycleChecks.walkName(
                ErrorScheme.spec(), rpc, kind, state, LifecycleModel.spec().expect(rpc, state));
    }

    /** The name of the authentication check of {@code rpc} for {@code kind}: {@code "wrong"} or {@code "missing"}. */
    static String auth(Rpc rpc, Kind kind, String variant) {
        return LifecycleChecks.authName(ErrorScheme.spec(), rpc, kind, variant);
    }

    /** The destination in a GetReplicationDestinationInfo response. */
    static ReplicationDestination destination(Message response) {
        return ((GetReplicationDestinationInfoResponse) response).getReplicationDestination();
    }

    /** A GetReplicationDestinationInfo answer naming a volume destination. */
    static Message volumeDestination(String volumeId) {
        return GetReplicationDestinationInfoResponse.newBuilder()
                .setReplicationDestination(ReplicationDestination.newBuilder()
                        .setVolume(ReplicationDestination.VolumeDestination.newBuilder()
                                .setVolumeId(volumeId)))
                .build();
    }

    /** Replaces the responses of {@code rpc} by {@code edit}'s, below the runtime's own response checks. */
    static ServerInterceptor rewriteResponse(Rpc rpc, UnaryOperator<Message> edit) {
        return rewrite(rpc, edit, UnaryOperator.identity());
    }

    /** Replaces the responses and the final status of {@code rpc}'s calls, below the runtime's own checks. */
    static ServerInterceptor rewrite(Rpc rpc, UnaryOperator<Message> response, UnaryOperator<Status> status) {
        return new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                if (!call.getMethodDescriptor().getBareMethodName().equals(rpc.methodName())) {
                    return next.startCall(call, headers);
                }
                return next.startCall(
                        new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                            @Override
                            @SuppressWarnings("unchecked")
                            public void sendMessage(A message) {
                                super.sendMessage((A) response.apply((Message) message));
                            }

                            @Override
                            public void close(Status s, Metadata trailers) {
                                super.close(status.apply(s), trailers);
                            }
                        },
                        headers);
            }
        };
    }

    /**
     * The standard fixtures: two volumes, a group, secret user=admin; transient answers settle within 300 ms (a
     * defect that answers 10 or 14 for ever is judged in a fraction of a second instead of a minute).
     */
    static ConformanceConfig.Builder driver(SpecDriver driver) {
        return ConformanceConfig.builder()
                .driver(driver)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .secrets(SECRETS)
                .settleTimeout(Duration.ofMillis(300));
    }
}

package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.csi.Volume;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's volumegroup.Controller calls against an independent plugin on the generated stubs: typed answers,
 * what goes on the wire, the capability gate, the service's error tables in the same engine (retries, secrets,
 * verification), the answer rules, and the listing's walk.
 */
class VolumeGroupClientTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private final GroupPlugin plugin = new GroupPlugin();

    private ReplicationClient client(ReplicationClient.Builder builder) throws Exception {
        TestServer server = grpc.register(TestServer.inProcess(plugin.controller(), plugin.identity()));
        return grpc.register(
                builder.target(server.target()).retry(RetryBehaviourTest.FAST).build());
    }

    private ReplicationClient client() throws Exception {
        return client(ReplicationClient.builder().secrets(SecretsProvider.of(Map.of("user", "admin"))));
    }

    @Test
    void aGroupIsCreatedChangedReadListedAndDeletedWithTypedAnswers() throws Exception {
        ReplicationClient c = client();
        VolumeGroup created = c.volumeGroups()
                .create("db")
                .volumes("vol-0", "vol-1")
                .parameter("pool", "rbd")
                .call();
        assertThat(created.id()).isEqualTo("vg-db");
        assertThat(created.volumeIds()).containsExactly("vol-0", "vol-1");
        var wire = (CreateVolumeGroupRequest)
                plugin.requests(CreateVolumeGroupRequest.class).get(0);
        assertThat(wire.getName()).isEqualTo("db");
        assertThat(wire.getVolumeIdsList()).containsExactly("vol-0", "vol-1");
        assertThat(wire.getParametersMap()).containsEntry("pool", "rbd");
        // No source yet: the plugin's secrets (SecretsProvider.of gives them to every call).
        assertThat(wire.getSecretsMap()).containsEntry("user", "admin");

        VolumeGroup grown = c.volumeGroups()
                .modify("vg-db")
                .volumes("vol-0", "vol-1", "vol-2")
                .call();
        assertThat(grown.volumeIds()).containsExactly("vol-0", "vol-1", "vol-2");
        assertThat(c.volumeGroups().get("vg-db").call().volumeIds()).containsExactly("vol-0", "vol-1", "vol-2");
        assertThat(c.volumeGroups().modify("vg-db").volumes().call().volumeIds())
                .isEmpty();
        assertThat(c.volumeGroups().list().stream().map(VolumeGroup::id)).containsExactly("vg-db");
        c.volumeGroups().delete("vg-db").call();
        assertThatThrownBy(() -> c.volumeGroups().get("vg-db").call())
                .isInstanceOf(SourceNotFoundException.class)
                .satisfies(
                        e -> assertThat(((ReplicationException) e).attempts()).isEqualTo(1));
        // Identity was asked once, for all of these.
        assertThat(plugin.capabilityCalls).hasValue(1);
    }

    @Test
    void anRpcThePluginDoesNotAdvertiseIsRefusedBeforeAnythingIsSent() throws Exception {
        plugin.advertised = EnumSet.of(VolumeGroupCapability.VOLUME_GROUP);
        ReplicationClient c = client();
        c.volumeGroups().create("a").call();
        for (Runnable call : List.<Runnable>of(
                () -> c.volumeGroups().modify("vg-a").volumes("vol-1").call(),
                () -> c.volumeGroups().get("vg-a").call(),
                () -> c.volumeGroups().list().call(),
                () -> c.volumeGroups().list().stream().forEach(g -> {}))) {
            assertThatThrownBy(call::run)
                    .isInstanceOf(CapabilityNotAdvertisedException.class)
                    .hasMessageContaining("does not advertise it (its VolumeGroup capabilities: VOLUME_GROUP)")
                    .hasMessageContaining("nothing was sent")
                    .satisfies(e -> {
                        CapabilityNotAdvertisedException refused = (CapabilityNotAdvertisedException) e;
                        assertThat(refused.attempts()).isZero();
                        assertThat(refused.code()).isEqualTo(StatusCode.UNIMPLEMENTED);
                        assertThat(refused.recovery()).isEqualTo(Recovery.NEVER);
                    });
        }
        assertThat(plugin.requests).hasSize(1);
        assertThat(plugin.capabilityCalls).hasValue(1);
        assertThat(c.capabilities().volumeGroupCapabilities()).containsExactly(VolumeGroupCapability.VOLUME_GROUP);
        assertThat(c.capabilities().offers(Rpc.LIST_VOLUME_GROUPS)).isFalse();
    }

    @Test
    void aPluginWithoutIdentityOffersNoVolumeGroups() throws Exception {
        TestServer server = grpc.register(TestServer.inProcess(plugin.controller()));
        ReplicationClient c = grpc.register(ReplicationClient.builder()
                .target(server.target())
                .retry(RetryBehaviourTest.FAST)
                .build());
        assertThatThrownBy(() -> c.volumeGroups().create("a").call())
                .isInstanceOf(CapabilityNotAdvertisedException.class)
                .hasMessage("CreateVolumeGroup is not offered: the plugin at " + server.target() + " serves no"
                        + " CSI-Addons Identity service, so it advertises no capability (it needs"
                        + " VolumeGroup.VOLUME_GROUP); nothing was sent");
        assertThat(plugin.requests).isEmpty();
    }

    @Test
    void requestsAreCheckedBeforeAnythingIsSent() throws Exception {
        ReplicationClient c = client();
        Map<String, Runnable> refused = new LinkedHashMap<>();
        refused.put(
                "name: required field is missing or empty",
                () -> c.volumeGroups().create("").call());
        refused.put(
                "volume_ids[1]: \"vol-0\" is given twice",
                () -> c.volumeGroups().create("a").volumes("vol-0", "vol-0").call());
        refused.put(
                "volume_group_id: 129 bytes",
                () -> c.volumeGroups().get("g".repeat(129)).call());
        refused.put(
                "volume_ids: the whole new membership is required",
                () -> c.volumeGroups().modify("vg-a").call());
        refused.put(
                "parameters: ",
                () -> c.volumeGroups()
                        .create("a")
                        .parameter("p", "x".repeat(4096))
                        .call());
        refused.put(
                "max_entries: MUST NOT be negative, got -2",
                () -> c.volumeGroups().list().maxEntries(-2));
        refused.forEach((message, call) -> assertThatThrownBy(call::run)
                .as(message)
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith(message)
                .satisfies(
                        e -> assertThat(((ReplicationException) e).attempts()).isZero()));
        assertThat(plugin.requests).isEmpty();
        assertThat(plugin.capabilityCalls)
                .as("nothing at all is sent for an invalid request")
                .hasValue(0);
    }

    @Test
    void upstreamsSevenForUngroupableVolumesIsAPreconditionAndNeitherItNorAnIncompatibleNameIsRetried()
            throws Exception {
        ReplicationClient c = client();
        plugin.script(Rpc.CREATE_VOLUME_GROUP, Status.PERMISSION_DENIED.withDescription("vol-1 is in another pool"));
        assertThatThrownBy(() ->
                        c.volumeGroups().create("a").volumes("vol-0", "vol-1").call())
                .isInstanceOfSatisfying(PreconditionFailedException.class, e -> {
                    assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.getMessage())
                            .startsWith(
                                    "CreateVolumeGroup for the volume group named a failed with"
                                            + " 7 PERMISSION_DENIED (read as 9 FAILED_PRECONDITION, as CreateVolumeGroup's table has it):"
                                            + " vol-1 is in another pool (precondition: Caller MUST fix the configuration of the volumes");
                });
        plugin.script(Rpc.CREATE_VOLUME_GROUP, Status.ALREADY_EXISTS.withDescription("a exists with other parameters"));
        assertThatThrownBy(() -> c.volumeGroups().create("a").call())
                .isInstanceOfSatisfying(ReplicationException.class, e -> {
                    assertThat(e.code()).isEqualTo(StatusCode.ALREADY_EXISTS);
                    assertThat(e.recovery()).isEqualTo(Recovery.FIX_REQUEST);
                    assertThat(e.attempts()).isEqualTo(1);
                });
        // A full group: "ensure it is addressed before retrying", so not retried by itself (a transport 8 would be).
        plugin.groups.put("vg-b", new ArrayList<>());
        plugin.script(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, Status.RESOURCE_EXHAUSTED.withDescription("group is full"));
        assertThatThrownBy(
                        () -> c.volumeGroups().modify("vg-b").volumes("vol-9").call())
                .isInstanceOfSatisfying(ReplicationException.class, e -> {
                    assertThat(e.code()).isEqualTo(StatusCode.RESOURCE_EXHAUSTED);
                    assertThat(e.recovery()).isEqualTo(Recovery.ENSURE_PRECONDITION);
                    assertThat(e.attempts()).isEqualTo(1);
                });
        // Transient failures are retried as for every call.
        plugin.script(Rpc.CONTROLLER_GET_VOLUME_GROUP, Status.UNAVAILABLE, Status.UNAVAILABLE);
        assertThat(c.volumeGroups().get("vg-b").call().id()).isEqualTo("vg-b");
    }

    @Test
    void notFoundIsRetriedOnlyWhenTheVerifierApprovesTheGroupAndThePluginsSecretsAreRenewed() throws Exception {
        List<ReplicationSource> verified = new CopyOnWriteArrayList<>();
        SecretsProvider renewing = new SecretsProvider() {
            @Override
            public Secrets secrets(ReplicationSource source) {
                return Secrets.of(Map.of("user", "group-" + source.id()));
            }

            @Override
            public Secrets pluginSecrets() {
                return Secrets.of(Map.of("user", "old"));
            }

            @Override
            public CompletionStage<Secrets> renewPluginSecrets() {
                return CompletableFuture.completedFuture(Secrets.of(Map.of("user", "new")));
            }
        };
        ReplicationClient c =
                client(ReplicationClient.builder().secrets(renewing).sourceVerifier(source -> {
                    verified.add(source);
                    return CompletableFuture.completedFuture(true);
                }));
        plugin.groups.put("vg-a", new ArrayList<>(List.of("vol-0")));
        plugin.script(Rpc.CONTROLLER_GET_VOLUME_GROUP, Status.NOT_FOUND.withDescription("not yet"));
        assertThat(c.volumeGroups().get("vg-a").call().volumeIds()).containsExactly("vol-0");
        assertThat(verified).containsExactly(ReplicationSource.volumeGroup("vg-a"));
        plugin.script(Rpc.CREATE_VOLUME_GROUP, Status.UNAUTHENTICATED.withDescription("secret user=old refused"));
        c.volumeGroups().create("b").call();
        assertThat(plugin.requests(CreateVolumeGroupRequest.class))
                .extracting(r -> ((CreateVolumeGroupRequest) r).getSecretsMap().get("user"))
                .containsExactly("old", "new");
        // A call on a group sends the group's own secrets.
        c.volumeGroups().modify("vg-a").volumes("vol-1").call();
        assertThat(((ModifyVolumeGroupMembershipRequest) plugin.requests(ModifyVolumeGroupMembershipRequest.class)
                                .get(0))
                        .getSecretsMap())
                .containsEntry("user", "group-vg-a");
    }

    @Test
    void theListingWalksEveryPageLazilyAndStartsOverOnAbortedWithoutRepeatingAGroup() throws Exception {
        ReplicationClient c = client();
        IntStream.range(0, 7).forEach(i -> plugin.groups.put("vg-" + i, new ArrayList<>()));
        var walk = c.volumeGroups().list().maxEntries(3).iterator();
        assertThat(walk.next().id()).isEqualTo("vg-0");
        assertThat(plugin.requests(ListVolumeGroupsRequest.class)).hasSize(1); // lazily: one page so far
        List<String> seen = new ArrayList<>(List.of("vg-0"));
        walk.next();
        walk.next();
        seen.addAll(List.of("vg-1", "vg-2"));
        // The plugin forgets the listing: its next page answers 10; the walk starts over and skips what it gave.
        plugin.script(Rpc.LIST_VOLUME_GROUPS, Status.ABORTED.withDescription("invalid starting_token"));
        walk.forEachRemaining(g -> seen.add(g.id()));
        assertThat(seen).containsExactly("vg-0", "vg-1", "vg-2", "vg-3", "vg-4", "vg-5", "vg-6");
        assertThat(plugin.requests(ListVolumeGroupsRequest.class))
                .extracting(r -> ((ListVolumeGroupsRequest) r).getStartingToken())
                .containsExactly("", "t3", "", "t3", "t6");
        // One page by itself, with its token.
        VolumeGroupPage page = c.volumeGroups().list().maxEntries(5).call();
        assertThat(page.groups()).hasSize(5);
        assertThat(page.nextToken()).contains("t5");
        assertThat(c.volumeGroups().list().startingToken("t5").call().nextToken())
                .isEmpty();
        // Starting over is bounded.
        for (int i = 0; i <= ListVolumeGroupsCall.MAX_RESTARTS; i++) {
            plugin.script(Rpc.LIST_VOLUME_GROUPS, Status.ABORTED);
        }
        var stubborn = c.volumeGroups().list().maxEntries(3).startingToken("t3").iterator();
        assertThatThrownBy(stubborn::hasNext).isInstanceOf(OperationPendingException.class);
    }

    /** Runs {@code walk} on another thread, within a generous bound: a walk without end fails the test. */
    private static Throwable walkWithin(Duration bound, Runnable walk) throws Exception {
        CompletableFuture<Void> done = CompletableFuture.runAsync(walk);
        try {
            done.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the listing did not end within " + bound, e);
        }
    }

    @Test
    void aListingOfEmptyPagesWithFreshTokensEndsAsAProtocolViolation() throws Exception {
        // Issue 45, item 2: such a plugin kept "volrep group list" walking 138,500 pages in a minute.
        ReplicationClient c = client();
        plugin.endlessPages = 0;
        Throwable failure = walkWithin(
                Duration.ofSeconds(60), () -> c.volumeGroups().list().stream().forEach(g -> {}));
        assertThat(failure)
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining(ListVolumeGroupsCall.MAX_EMPTY_PAGES + " empty pages in a row");
        assertThat(plugin.requests(ListVolumeGroupsRequest.class)).hasSize(ListVolumeGroupsCall.MAX_EMPTY_PAGES);
    }

    @Test
    void theCallsTotalTimeoutCoversTheWholeListing() throws Exception {
        // Pages of fresh groups for ever: the walk ends at the policy's total timeout, not one page's.
        ReplicationClient c = client();
        plugin.endlessPages = 50;
        AtomicLong seen = new AtomicLong();
        long start = System.nanoTime();
        RetryPolicy twoSeconds = RetryBehaviourTest.FAST.toBuilder()
                .totalTimeout(Duration.ofSeconds(2))
                .build();
        Throwable failure = walkWithin(
                Duration.ofSeconds(60),
                () -> c.volumeGroups().list().retryPolicy(twoSeconds).stream().forEach(g -> seen.incrementAndGet()));
        assertThat(failure)
                .isInstanceOf(DeadlineExceededException.class)
                .hasMessageContaining("did not end within the call's total timeout of PT2S");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(seen.get()).as("groups streamed before the end").isPositive();
    }

    @Test
    void aWalkThatGaveMoreGroupsThanItRemembersDoesNotStartOver() throws Exception {
        // Memory stays bounded while streaming: past MAX_REMEMBERED_GROUPS the walk no longer keeps what it gave,
        // so a plugin's 10 ABORTED can no longer be answered by starting over without repeats; the 10 ends it.
        ReplicationClient c = client();
        plugin.endlessPages = 1_000;
        var walk = c.volumeGroups().list().iterator();
        for (int i = 0; i <= ListVolumeGroupsCall.MAX_REMEMBERED_GROUPS; i++) {
            walk.next();
        }
        plugin.script(Rpc.LIST_VOLUME_GROUPS, Status.ABORTED.withDescription("invalid starting_token"));
        Throwable failure = walkWithin(Duration.ofSeconds(60), () -> walk.forEachRemaining(g -> {}));
        assertThat(failure).isInstanceOf(OperationPendingException.class);
    }

    @Test
    void answersThatBreakTheRulesAreProtocolViolations() throws Exception {
        ReplicationClient c = client();
        plugin.groups.put("vg-a", new ArrayList<>());
        plugin.bend = g -> g.toBuilder().clearVolumes().build();
        assertThatThrownBy(
                        () -> c.volumeGroups().modify("vg-a").volumes("vol-1").call())
                .isInstanceOfSatisfying(ProtocolViolationException.class, e -> {
                    assertThat(e.field()).contains("volume_group.volumes");
                    assertThat(e.getMessage()).contains("the membership asked for is [\"vol-1\"], the answer lists []");
                });
        plugin.bend = g -> g.toBuilder().setVolumeGroupId("").build();
        assertThatThrownBy(() -> c.volumeGroups().get("vg-a").call())
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("volume_group.volume_group_id: REQUIRED but empty");
        plugin.bend = g -> g;
        IntStream.range(0, 5).forEach(i -> plugin.groups.put("vg-" + i, new ArrayList<>()));
        plugin.stuckToken = true;
        assertThatThrownBy(() -> c.volumeGroups().list().maxEntries(2).stream().count())
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("a next_token this listing already followed");
    }

    @Test
    void anAnswerAboutAnotherGroupOrWithMembersNobodyAskedForIsAProtocolViolation() throws Exception {
        // Issue 45, item 10: "volrep group get --id vg-1" printed another tenant's group, exit 0.
        ReplicationClient c = client();
        plugin.groups.put("vg-1", new ArrayList<>(List.of("vol-0")));
        plugin.bend = g -> g.toBuilder().setVolumeGroupId("vg-OTHER-tenant").build();
        for (Runnable call : List.<Runnable>of(
                () -> c.volumeGroups().get("vg-1").call(),
                () -> c.volumeGroups().modify("vg-1").volumes("vol-0").call())) {
            assertThatThrownBy(call::run).isInstanceOfSatisfying(ProtocolViolationException.class, e -> {
                assertThat(e.field()).contains("volume_group.volume_group_id");
                assertThat(e.getMessage())
                        .contains("the answer is about volume group \"vg-OTHER-tenant\", the call asked about"
                                + " \"vg-1\"");
                assertThat(e.attempts()).isEqualTo(1);
            });
        }
        // A created group holds only volumes the call asked for (none at all is allowed: Create need not list them).
        plugin.bend = g -> g.toBuilder()
                .addVolumes(Volume.newBuilder().setVolumeId("vol-9"))
                .build();
        assertThatThrownBy(() -> c.volumeGroups().create("db").volumes("vol-0").call())
                .isInstanceOfSatisfying(ProtocolViolationException.class, e -> {
                    assertThat(e.field()).contains("volume_group.volumes");
                    assertThat(e.getMessage()).contains("not asked for [\"vol-9\"]");
                });
        plugin.bend = g -> g.toBuilder().clearVolumes().build();
        assertThat(c.volumeGroups().create("logs").volumes("vol-1").call().volumeIds())
                .isEmpty();
    }

    @Test
    void callsOnOneGroupAreNeverInFlightTogetherAndObserversSeeTheGroup() throws Exception {
        List<String> observed = new CopyOnWriteArrayList<>();
        ReplicationClient c = client(ReplicationClient.builder().observer((rpc, source) -> {
            observed.add(rpc.methodName() + " " + source.map(Object::toString).orElse("-"));
            return CallObservation.NONE;
        }));
        plugin.groups.put("vg-a", new ArrayList<>());
        plugin.latencyMillis = 30;
        List<CompletableFuture<VolumeGroup>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(c.volumeGroups().modify("vg-a").volumes("vol-" + i).callAsync());
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        assertThat(plugin.mostInFlight).hasValue(1);
        c.volumeGroups().create("b").call();
        assertThat(observed)
                .contains("ModifyVolumeGroupMembership volumegroup vg-a", "CreateVolumeGroup -", "GetCapabilities -");
        assertThat(c.activeSources()).isZero();
    }

    @SuppressWarnings("ObjectToString") // proves that printing a call object shows no secret, whoever prints it
    @Test
    void aPluginEchoingTheSecretsNeverGetsThemIntoAnExceptionOrAnEvent() throws Exception {
        String secret = "Gr0up-Secr3t-Value";
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        ReplicationClient c = client(ReplicationClient.builder()
                .secrets(SecretsProvider.of(Map.of("password", secret)))
                .listener(events::add));
        plugin.script(Rpc.CREATE_VOLUME_GROUP, Status.INVALID_ARGUMENT.withDescription("bad login " + secret));
        assertThatThrownBy(() -> c.volumeGroups().create("db").call())
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("bad login ***")
                .hasMessageNotContaining(secret)
                .satisfies(e -> assertThat(e.toString()).doesNotContain(secret));
        assertThat(events)
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.describe() + e).doesNotContain(secret));
        assertThat(c.volumeGroups()
                        .create("db")
                        .secrets(Map.of("password", secret))
                        .toString())
                .doesNotContain(secret);
    }
}

package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.volrep.api.ReplicationSource;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.volumegroup.ControllerGrpc;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code volrep group ...} in-process against the reference plugin on a unix socket, and {@code failover} of its groups. */
class GroupCommandTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final String SECRET = "Gr0up-s3cret-value";

    private static String[] on(ReplicationServer server, Path secrets, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--endpoint", server.address(), "--secrets-file", secrets.toString(), "--timeout", "5s"));
        return all.toArray(String[]::new);
    }

    private static Path secretsFile(Path dir) throws Exception {
        Path file = dir.resolve("secrets");
        Files.writeString(file, "password=" + SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    @Test
    void aGroupIsCreatedChangedShownListedAndDeleted(@TempDir Path dir) throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(3)
                .requiredSecret("password", SECRET)
                .build();
        Path secrets = secretsFile(dir);
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("r.sock")));
        Run create = volrep(on(
                server,
                secrets,
                "group",
                "create",
                "--name",
                "db",
                "--volume",
                "vol-0",
                "--volume",
                "vol-1",
                "--parameter",
                "tier=gold"));
        assertThat(create.exit()).as(create.all()).isZero();
        assertThat(create.out())
                .isEqualTo(String.join(System.lineSeparator(), "group vg-1", "  member vol-0", "  member vol-1", ""));
        // The group is a replication source of the plugin from now on.
        assertThat(driver.sources()).contains(ReplicationSource.volumeGroup("vg-1"));

        Run modify = volrep(
                on(server, secrets, "group", "modify", "--id", "vg-1", "--volume", "vol-1", "--volume", "vol-2"));
        assertThat(modify.exit()).as(modify.all()).isZero();
        assertThat(modify.out())
                .contains("group vg-1")
                .contains("  member vol-2")
                .doesNotContain("vol-0");
        assertThat(volrep(on(server, secrets, "group", "get", "--id", "vg-1")).out())
                .contains("  member vol-1")
                .contains("  member vol-2");

        volrep(on(server, secrets, "group", "create", "--name", "logs"));
        Run list = volrep(on(server, secrets, "group", "list", "--max-entries", "1"));
        assertThat(list.exit()).as(list.all()).isZero();
        assertThat(list.out())
                .isEqualTo(String.join(
                        System.lineSeparator(), "group vg-1", "  member vol-1", "  member vol-2", "group vg-2", ""));

        Run empty = volrep(on(server, secrets, "group", "modify", "--id", "vg-1", "--empty"));
        assertThat(empty.out()).isEqualTo("group vg-1" + System.lineSeparator());
        Run delete = volrep(on(server, secrets, "group", "delete", "--id", "vg-1"));
        assertThat(delete.exit()).as(delete.all()).isZero();
        assertThat(delete.out()).contains("DeleteVolumeGroup vg-1: OK");
        Run gone = volrep(on(server, secrets, "group", "get", "--id", "vg-1"));
        assertThat(gone.exit()).isEqualTo(CallCommand.EXIT_CALL_FAILED);
        assertThat(gone.err())
                .contains("code: 5 NOT_FOUND from ControllerGetVolumeGroup after 1 attempt(s)")
                .contains("recovery (VERIFY_THEN_BACKOFF): Caller MUST verify that the `volume_group_id` is"
                        + " correct");
        for (Run run : List.of(create, modify, list, empty, delete, gone)) {
            assertThat(run.all()).doesNotContain(SECRET);
        }
    }

    @Test
    void aFailureSaysTheCodeAndTheTablesRecoveryAndUsageErrorsExitTwo(@TempDir Path dir) throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(2)
                .requiredSecret("password", SECRET)
                .build();
        Path secrets = secretsFile(dir);
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("r.sock")));
        volrep(on(server, secrets, "group", "create", "--name", "a", "--volume", "vol-0"));
        Run twice = volrep(on(server, secrets, "group", "create", "--name", "b", "--volume", "vol-0"));
        assertThat(twice.exit()).isEqualTo(CallCommand.EXIT_CALL_FAILED);
        assertThat(twice.err())
                .contains("volumes cannot be grouped together")
                .contains("code: 9 FAILED_PRECONDITION from CreateVolumeGroup after 1 attempt(s)")
                .contains("recovery (ENSURE_PRECONDITION): Caller MUST fix the configuration of the volumes");
        Run noMembership = volrep(on(server, secrets, "group", "modify", "--id", "vg-1"));
        assertThat(noMembership.exit()).isEqualTo(VolrepCommand.EXIT_USAGE);
        assertThat(noMembership.err()).contains("--volume").contains("--empty");
        Run both = volrep(on(server, secrets, "group", "modify", "--id", "vg-1", "--volume", "vol-1", "--empty"));
        assertThat(both.exit()).isEqualTo(VolrepCommand.EXIT_USAGE);
        Run negative = volrep(on(server, secrets, "group", "list", "--max-entries", "-1"));
        assertThat(negative.exit()).isEqualTo(VolrepCommand.EXIT_USAGE);
        assertThat(negative.err()).contains("--max-entries must not be negative: -1");
        Run alone = volrep("group");
        assertThat(alone.exit()).isEqualTo(VolrepCommand.EXIT_USAGE);
        assertThat(alone.err()).contains("create").contains("list").contains("a subcommand is required");
    }

    /**
     * A plugin whose listing never ends (issue 45, item 2): every page three fresh groups and a fresh token, on TCP;
     * the second page waits for {@code secondPage}.
     */
    private Server endlessListing(CountDownLatch secondPage) throws Exception {
        AtomicInteger pages = new AtomicInteger();
        var controller = new ControllerGrpc.ControllerImplBase() {
            @Override
            public void listVolumeGroups(ListVolumeGroupsRequest r, StreamObserver<ListVolumeGroupsResponse> o) {
                int page = pages.incrementAndGet();
                if (page == 2) {
                    try {
                        secondPage.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                ListVolumeGroupsResponse.Builder b =
                        ListVolumeGroupsResponse.newBuilder().setNextToken("t" + page);
                for (int i = 0; i < 3; i++) {
                    b.addEntriesBuilder().getVolumeGroupBuilder().setVolumeGroupId("vg-" + page + "-" + i);
                }
                o.onNext(b.build());
                o.onCompleted();
            }
        };
        var identity = new IdentityGrpc.IdentityImplBase() {
            @Override
            public void getCapabilities(GetCapabilitiesRequest r, StreamObserver<GetCapabilitiesResponse> o) {
                o.onNext(GetCapabilitiesResponse.newBuilder()
                        .addCapabilities(Capability.newBuilder()
                                .setVolumeGroup(Capability.VolumeGroup.newBuilder()
                                        .setTypeValue(VolumeGroupCapability.LIST_VOLUME_GROUPS.wireNumber())))
                        .build());
                o.onCompleted();
            }
        };
        return grpc.register(NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(controller)
                .addService(identity)
                .build()
                .start());
    }

    @Test
    void aListingIsPrintedPageByPageAndEndsWithinTheTimeoutHoweverManyPagesThePluginHas() throws Exception {
        CountDownLatch secondPage = new CountDownLatch(1);
        Server server = endlessListing(secondPage);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = VolrepCommand.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(
                () -> cli.execute("group", "list", "--endpoint", "127.0.0.1:" + server.getPort(), "--timeout", "10s"));
        // The first page is on stdout while the second one is still coming (before: nothing until the end).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!out.toString().contains("group vg-1-2") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(out.toString())
                .as(err.toString())
                .startsWith(String.join(System.lineSeparator(), "group vg-1-0", "group vg-1-1", "group vg-1-2", ""));
        assertThat(run).isNotDone();
        secondPage.countDown();
        // --timeout covers the whole listing, not one page (before: a walk without end).
        int exit = run.get(60, TimeUnit.SECONDS);
        assertThat(exit).as(err.toString()).isEqualTo(CallCommand.EXIT_CALL_FAILED);
        assertThat(err.toString())
                .contains("the listing did not end within the call's total timeout of PT10S")
                .contains("code: 4 DEADLINE_EXCEEDED from ListVolumeGroups");
        assertThat(out.toString()).contains("group vg-2-0");
    }

    @Test
    void aPluginWithoutTheServiceIsToldBeforeAnythingIsSent(@TempDir Path dir) throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).build();
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(driver)
                .listen("unix://" + dir.resolve("r.sock"))
                .build()
                .start());
        Run run = volrep("group", "create", "--name", "db", "--endpoint", server.address());
        assertThat(run.exit()).isEqualTo(CallCommand.EXIT_CALL_FAILED);
        assertThat(run.err())
                .contains("CreateVolumeGroup is not offered: the plugin at " + server.address()
                        + " does not advertise it (its VolumeGroup capabilities: none)")
                .contains("code: 12 UNIMPLEMENTED from CreateVolumeGroup after 0 attempt(s)");
    }

    @Test
    void aGroupMadeThisWayIsReplicatedFailedOverWithTheDestinationsMemberMapAndDeleted(@TempDir Path dir)
            throws Exception {
        ReferenceDriver a = ReferenceDriver.builder()
                .volumes(2)
                .requiredSecret("password", SECRET)
                .build();
        ReferenceDriver b = ReferenceDriver.builder()
                .volumes(2)
                .requiredSecret("password", SECRET)
                .build();
        Path secrets = secretsFile(dir);
        ReplicationServer siteA = grpc.register(ReferencePlugin.start(a, "unix://" + dir.resolve("a.sock")));
        ReplicationServer siteB = grpc.register(ReferencePlugin.start(b, "unix://" + dir.resolve("b.sock")));
        // The same group on both sites (the reference's sites share ids): primary on A, secondary on B.
        for (ReplicationServer site : List.of(siteA, siteB)) {
            assertThat(volrep(on(
                                    site,
                                    secrets,
                                    "group",
                                    "create",
                                    "--name",
                                    "db",
                                    "--volume",
                                    "vol-0",
                                    "--volume",
                                    "vol-1"))
                            .exit())
                    .isZero();
            assertThat(volrep(on(site, secrets, "enable", "--volume-group", "vg-1"))
                            .exit())
                    .isZero();
        }
        assertThat(volrep(on(siteB, secrets, "demote", "--volume-group", "vg-1"))
                        .exit())
                .isZero();
        Run destination = volrep(on(siteA, secrets, "destination", "--volume-group", "vg-1"));
        assertThat(destination.out())
                .contains("destination: vg-1")
                .contains("vol-0 -> vol-0")
                .contains("vol-1 -> vol-1");

        Run failover = volrep(
                "failover",
                "--from",
                siteA.address(),
                "--to",
                siteB.address(),
                "--volume-group",
                "vg-1",
                "--secrets-file",
                secrets.toString(),
                "--to-secrets-file",
                secrets.toString(),
                "--timeout",
                "5s");
        assertThat(failover.exit()).as(failover.all()).isZero();
        assertThat(failover.out())
                .containsPattern("volumegroup vg-1 +volumegroup vg-1 +primary on site B")
                .contains("failover: 1 of 1 primary on site B");
        assertThat(a.state(ReplicationSource.volumeGroup("vg-1")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(b.state(ReplicationSource.volumeGroup("vg-1")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);

        // Deleted on both sites once its replication is disabled (a replicated group is in use: 9).
        for (ReplicationServer site : List.of(siteA, siteB)) {
            Run inUse = volrep(on(site, secrets, "group", "delete", "--id", "vg-1"));
            assertThat(inUse.exit()).as(inUse.all()).isEqualTo(CallCommand.EXIT_CALL_FAILED);
            assertThat(inUse.err()).contains("code: 9 FAILED_PRECONDITION from DeleteVolumeGroup");
            assertThat(volrep(on(site, secrets, "disable", "--volume-group", "vg-1"))
                            .exit())
                    .isZero();
            Run delete = volrep(on(site, secrets, "group", "delete", "--id", "vg-1"));
            assertThat(delete.exit()).as(delete.all()).isZero();
            assertThat(delete.out()).isEqualTo("DeleteVolumeGroup vg-1: OK" + System.lineSeparator());
            Run gone = volrep(on(site, secrets, "group", "get", "--id", "vg-1"));
            assertThat(gone.err()).contains("code: 5 NOT_FOUND from ControllerGetVolumeGroup");
            assertThat(volrep(on(site, secrets, "group", "list")).out()).isEmpty();
        }
        assertThat(a.sources()).doesNotContain(ReplicationSource.volumeGroup("vg-1"));
        assertThat(b.sources()).doesNotContain(ReplicationSource.volumeGroup("vg-1"));
    }
}

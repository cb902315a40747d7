package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.testkit.reference.ReferenceDriver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Check ids are structural, pinned and documented: docs/check-ids.md is generated from the checks (this fails the
 * build when they differ), every id follows the grammar, none derives from a name, only per-fixture ids carry a
 * fixture's name, and a glob selects what its words say, proven by running the suite.
 */
class CheckIdsTest {
    static final Path DOC = Path.of("..", "docs", "check-ids.md");
    private static final Map<String, String> SECRETS = Map.of("user", "admin");
    /** The groups whose checks are made once per fixture, and end in the fixture's id. */
    private static final Set<String> PER_FIXTURE = Set.of("fixtures", "lifecycle", "fixtures-restored");

    private static final Pattern GRAMMAR = Pattern.compile("(?<group>"
            + String.join(
                    "|",
                    Arrays.stream(Rpc.values())
                            .filter(r -> r.isReplication() || r.isVolumeGroup() || r == Rpc.NODE_HEALER)
                            .map(Rpc::methodName)
                            .toList())
            + "|fixtures|lifecycle|isolation|response-validity|request-forms|fixtures-restored|identity|volumegroup|two-sites)"
            + "/(?<subject>volume|group|request|all-fixtures|plugin)/(?<rest>.+)");
    /** A condition; the exploration's checks with force add {@code /force} to their state's (issue 30). */
    private static final Pattern CONDITION = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*(/force)?");

    /** Issue 49 item 14: a check named after a row whose words hold the spec's typo says it quotes them. */
    @Test
    void aNameQuotingTheSpecsTypoSaysItIsAQuote() {
        List<String> names = CheckCatalog.entries().stream()
                .filter(e -> e.id().startsWith("DemoteVolume/volume/disabled"))
                .map(CheckCatalog.Entry::name)
                .toList();
        assertThat(names)
                .isNotEmpty()
                .allSatisfy(name -> assertThat(name)
                        .contains("Replication Source in [sic, the spec's words] not replicated")
                        .contains("Volume in [sic, the spec's words] not replicated"));
        assertThat(CheckCatalog.entries())
                .map(CheckCatalog.Entry::name)
                .filteredOn(name -> name.contains(" in not replicated"))
                .isEmpty();
        assertThat(ControllerChecks.quoted(
                        "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION"))
                .isEqualTo("PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION");
    }

    @Test
    void docMatchesTheChecks() throws IOException {
        String expected = CheckCatalog.markdown();
        if (Boolean.getBoolean("volrep.regenerateDocs")) {
            Files.writeString(DOC, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(DOC))
                .as("%s exists (regenerate with -Dvolrep.regenerateDocs=true)", DOC)
                .isTrue();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
                .as("docs/check-ids.md is stale: regenerate with ./mvnw -pl replication-testkit -am test"
                        + " -Dtest=CheckIdsTest -Dsurefire.failIfNoSpecifiedTests=false -Dvolrep.regenerateDocs=true")
                .isEqualTo(expected);
        assertThat(expected)
                .contains(
                        "| `PromoteVolume/group/disabled` |",
                        "| `fixtures/volume/<volume>` |",
                        "| `isolation/all-fixtures/concurrent` |",
                        "| `identity/plugin/name` |");
    }

    private static List<Check> checks(ConformanceConfig config) {
        return ConformanceChecks.builtIn().stream()
                .flatMap(g -> g.checks(config).stream())
                .toList();
    }

    private static ConformanceConfig config(SpecDialect dialect, String volume, String group) {
        ConformanceConfig.Builder b = ConformanceConfig.builder()
                .endpoint("inprocess:unused")
                .dialect(dialect)
                .volumes(volume, volume + "-2")
                .secrets(SECRETS)
                .healerVolume(volume, "/mnt/" + volume);
        return group == null ? b.build() : b.volumeGroups(group).build();
    }

    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void everyIdIsUniqueStructuralAndCarriesAFixtureNameOnlyWhereMadePerFixture(SpecDialect dialect) {
        // Fixture names chosen to break naive ids: a slash, spaces, a word the grammar uses.
        for (String group : new String[] {"grp 0/a", null}) {
            List<Check> checks = checks(config(dialect, "pvc a/primary", group));
            assertThat(checks.stream().map(Check::id)).doesNotHaveDuplicates();
            assertThat(checks.stream().map(Check::name))
                    .as("names, by which reports find results")
                    .doesNotHaveDuplicates();
            for (Check c : checks) {
                var m = GRAMMAR.matcher(c.id());
                assertThat(m.matches())
                        .as("%s follows <group>/<subject>/<condition>[/<fixture>]", c.id())
                        .isTrue();
                assertThat(c.id()).as("not derived from the name").isNotEqualTo(Check.idOf(c.name()));
                String rest = m.group("rest");
                if (PER_FIXTURE.contains(m.group("group"))) {
                    List<String> fixtures = new ArrayList<>(List.of("pvc a/primary", "pvc a/primary-2", "none"));
                    if (group != null) {
                        fixtures.add(group);
                    }
                    assertThat(rest).as("%s ends in a fixture's id", c.id()).isIn(fixtures);
                } else {
                    assertThat(rest)
                            .as("%s: a condition, no fixture name", c.id())
                            .matches(CONDITION);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void onlyPerFixtureIdsDependOnTheFixturesNames(SpecDialect dialect) {
        List<String> a = checks(config(dialect, "vol-0", "grp-0")).stream()
                .map(Check::id)
                .toList();
        List<String> b = checks(config(dialect, "other", "other-group")).stream()
                .map(Check::id)
                .toList();
        assertThat(a).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            String group = a.get(i).substring(0, a.get(i).indexOf('/'));
            if (PER_FIXTURE.contains(group)) {
                assertThat(a.get(i).substring(0, a.get(i).lastIndexOf('/')))
                        .isEqualTo(b.get(i).substring(0, b.get(i).lastIndexOf('/')));
            } else {
                assertThat(a.get(i)).isEqualTo(b.get(i));
            }
        }
    }

    private static ReferenceDriver reference() {
        return ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(SECRETS)
                .build();
    }

    private static Set<String> ids(ComplianceReport report, Predicate<CheckResult> which) {
        return report.results().stream().filter(which).map(CheckResult::id).collect(Collectors.toSet());
    }

    @Test
    void everyCheckThatNeedsAGroupHasGroupInItsIdAndNoOtherDoes() {
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(reference)
                        .volumes("vol-0", "vol-1")
                        .secrets(SECRETS)
                        .build())
                .run();

        Set<String> skippedForGroups = ids(
                report, r -> r.outcome() == CheckOutcome.SKIPPED && r.reason().contains("no volume groups configured"));
        // volumegroup.Controller's checks are about volume groups too, the ones they create: never a fixture's.
        Set<String> groupServiceIds = ids(
                report,
                r -> r.id().startsWith("volumegroup/")
                        || Arrays.stream(Rpc.values())
                                .anyMatch(rpc -> rpc.isVolumeGroup() && r.id().startsWith(rpc.methodName() + "/")));
        Set<String> groupIds = ids(report, r -> r.id().contains("/group/"));
        assertThat(skippedForGroups).hasSizeGreaterThan(40).doesNotContainAnyElementsOf(groupServiceIds);
        Set<String> expected = new HashSet<>(skippedForGroups);
        groupServiceIds.stream().filter(id -> id.contains("/group/")).forEach(expected::add);
        assertThat(groupIds).isEqualTo(expected);
        assertThat(report.compliant()).isTrue();
    }

    @Test
    void everyCheckThatNeedsSecretsIsAnAuthCheck() {
        ReferenceDriver open = ReferenceDriver.builder().volumes(2).groups(1).build();
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(open)
                        .volumeGroupDriver(open)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .build())
                .run();

        Set<String> skippedForSecrets = ids(
                report, r -> r.outcome() == CheckOutcome.SKIPPED && r.reason().contains("no secrets configured"));
        Set<String> authIds = report.results().stream()
                .map(CheckResult::id)
                .filter(id -> checkMatching(id, "*/auth-*"))
                .collect(Collectors.toSet());
        // And the check that looks for the secrets in the answers: without secrets there is nothing to look for.
        authIds.add("response-validity/plugin/secrets-not-echoed");
        assertThat(skippedForSecrets).hasSizeGreaterThan(25).isEqualTo(authIds);
    }

    @Test
    void everyCheckThatNeedsANodeVolumeIsANodeHealerCheck() {
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(reference())
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .build())
                .run();

        assertThat(ids(
                        report,
                        r -> r.outcome() == CheckOutcome.SKIPPED && r.reason().contains("--healer-volume")))
                .isNotEmpty()
                .isEqualTo(ids(report, r -> r.id().startsWith("NodeHealer/")));
    }

    private static boolean checkMatching(String id, String pattern) {
        return Check.builder().id(id).name("unused").body(ctx -> {}).build().matches(pattern);
    }

    @Test
    void skippingGroupChecksLeavesNoCallOnAGroupButTheEveryFixtureCheck() {
        List<String> groupCalls = Collections.synchronizedList(new ArrayList<>());
        ServerInterceptor recordGroupCalls = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                        next.startCall(call, headers)) {
                    @Override
                    public void onMessage(Q message) {
                        var source = ((Message) message).getDescriptorForType().findFieldByName("replication_source");
                        if (source != null
                                && ((ReplicationSource) ((Message) message).getField(source)).hasVolumegroup()) {
                            groupCalls.add(call.getMethodDescriptor().getBareMethodName());
                        }
                        super.onMessage(message);
                    }
                };
            }
        };
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(reference())
                        .interceptor(recordGroupCalls)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .skipChecks(List.of("*/group/*", "isolation/all-fixtures/*", "*/all-fixtures/*"))
                        .build())
                .run();
        assertThat(groupCalls).as("calls naming a group").isEmpty();
        assertThat(report.skippedOnRequest())
                .hasSizeGreaterThan(40)
                .allSatisfy(id -> assertThat(id).matches(".*/group/.*|.*/all-fixtures/.*"));
        assertThat(report.compliant()).isTrue();

        // The checks of every fixture at once are not group checks, as their words say: they still call the group.
        ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(reference())
                        .interceptor(recordGroupCalls)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .skipChecks(List.of("*/group/*"))
                        .build())
                .run();
        assertThat(groupCalls).isNotEmpty();
    }

    @Test
    void noIdOfAReleaseThatNeverShippedSelectsACheck() {
        // 0.1 was never released: its ids (names in lower case, isolation/concurrent) are not accepted.
        ConformanceConfig config = config(SpecDialect.CURRENT, "vol-0", "grp-0");
        List<Check> checks = checks(config);
        String notFound = "enablevolumereplication-replication-source-does-not-exist-5-not-found-volume-"
                + "volrep-conformance-no-such-volume";
        for (String old : List.of("isolation/concurrent", "isolation/group-volume", notFound)) {
            assertThat(checks.stream().filter(c -> c.matches(old))).as(old).isEmpty();
        }
    }
}

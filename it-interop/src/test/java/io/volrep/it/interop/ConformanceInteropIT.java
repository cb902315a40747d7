package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.cli.VolrepCommand;
import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Issue 5's criterion (and issue 6's healer checks): {@code volrep conformance --endpoint} passes the independent
 * Node plugin (interop/plugin.js) and fails each single-defect variant of it with the check named after the
 * broken spec row. The correct plugin is tested through the jar; the defects run the same command in-process
 * (no JVM start per defect) to keep the suite fast.
 */
class ConformanceInteropIT {
    private static final String[] FIXTURES = {
        "--volume",
        "vol-0",
        "--volume",
        "vol-1",
        "--volume-group",
        "grp-0",
        "--secret",
        "user=admin",
        "--resync-timeout",
        "3s"
    };

    /**
     * The statement of a run without --peer-endpoint: compliant for the checks run, the two-site checks (and those
     * --include-tag left out) named as not run, with the option that runs them (issue 49).
     */
    private static final String COMPLIANT_WITHOUT_PEER =
            "(?m)^COMPLIANT for the checks run; \\d+ required checks not run \\(.*need a peer site: --peer-endpoint.*\\): ";

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
    }

    private Peer plugin(String... extra) {
        return peer("plugin.js", extra);
    }

    private Peer peer(String script, String... extra) {
        var socket = Interop.socketPath();
        List<String> args =
                new ArrayList<>(List.of("--listen", "unix://" + socket, "--secret", "user=admin", "--quiet"));
        args.addAll(List.of(extra));
        Peer p = Peer.start(socket, Interop.node(script, args.toArray(String[]::new)));
        cleanup.register(p);
        return p;
    }

    /** {@code volrep conformance} in-process (no JVM start per run): exit code and everything it printed. */
    private static Result conformanceInProcess(List<String> args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        int exit = cli.execute(args.toArray(String[]::new));
        return new Result(exit, out.toString());
    }

    private static List<String> conformanceArgs(Peer p, boolean healer) {
        List<String> args = new ArrayList<>(List.of("conformance", "--endpoint", p.endpoint()));
        args.addAll(List.of(FIXTURES));
        return withHealer(args, p, healer);
    }

    /** One volume and the required checks only: what a defect needs to be caught, in a fraction of the time. */
    private static List<String> quickConformanceArgs(Peer p, boolean healer) {
        List<String> args = new ArrayList<>(List.of(
                "conformance",
                "--endpoint",
                p.endpoint(),
                "--volume",
                "vol-0",
                "--volume-group",
                "grp-0",
                "--secret",
                "user=admin",
                "--resync-timeout",
                "2s",
                "--include-tag",
                "required"));
        return withHealer(args, p, healer);
    }

    private static List<String> withHealer(List<String> args, Peer p, boolean healer) {
        if (healer) {
            // Every NodeHealer input: a mounted volume, its staging path and context, and a block volume.
            args.addAll(List.of(
                    "--healer-endpoint",
                    p.endpoint(),
                    "--healer-volume",
                    "vol-0=/var/lib/kubelet/pods/i/vol-0",
                    "--healer-staging-path",
                    "/var/lib/kubelet/plugins/kubernetes.io/csi/pv/vol-0/globalmount",
                    "--healer-volume-context",
                    "pool=rbd",
                    "--healer-block-volume",
                    "vol-1=/dev/rbd1"));
        }
        return args;
    }

    @Test
    void jarPassesTheIndependentCorrectPluginWithHealer() {
        Peer p = plugin();
        Result r = Interop.run(Interop.volrep(conformanceArgs(p, true).toArray(String[]::new)), Interop.RUN_TIMEOUT);

        assertThat(r.output())
                .as(r.output())
                .contains("COMPLIANT")
                .contains("required checks: ")
                .contains(", 0 failed")
                .contains("NodeHealer")
                .doesNotContain("\nFAIL ")
                .doesNotContain("admin")
                .contains("PASS            required NodeHealer: a block volume_capability is accepted")
                .contains("PASS            required NodeHealer: an absolute staging_target_path of 128+ bytes")
                .contains("PASS            optional NodeHealer: an absolute staging_target_path of 4095 bytes")
                .contains("PASS            required NodeHealer: the volume's volume_context is accepted")
                .doesNotContain("SKIPPED         required NodeHealer");
        assertThat(r.exit()).as(r.output()).isZero();
    }

    @Test
    void jarPassesTheIndependentPluginWhoseInfoIsNotAvailableForAWhileAfterEachEnableAndPromote() {
        // Real storage's first-sync window (issue 35): Info answers 5 NOT_FOUND for 300 ms after an enable or a
        // promote. The table allows it ("details not available at the moment"): the suite waits it out.
        Peer p = plugin("--first-sync-delay-ms", "300");
        List<String> args = quickConformanceArgs(p, false);
        args.addAll(List.of("--settle-timeout", "5s"));
        Result r = Interop.run(Interop.volrep(args.toArray(String[]::new)), Interop.RUN_TIMEOUT);

        assertThat(r.output())
                .as(r.output())
                .contains("COMPLIANT")
                .contains(", 0 failed")
                .contains("for transient answers")
                .doesNotContain("\nFAIL ");
        assertThat(r.exit()).as(r.output()).isZero();
    }

    static Stream<Arguments> peersAndTheirRevisions() {
        return Stream.of(
                Arguments.of("plugin.js", List.of(), "current", true),
                Arguments.of("plugin.js", List.of("--revision", "upstream-2026"), "upstream-2026", true),
                Arguments.of("legacy-v013.js", List.of(), "v0.1.3", false),
                Arguments.of("legacy-v010.js", List.of(), "v0.1.0", false));
    }

    /** Dialect-true expectations: each independent peer passes every check of the revision it speaks, with no warning. */
    @ParameterizedTest(name = "{0} {1} as {2}")
    @MethodSource("peersAndTheirRevisions")
    void everyIndependentPeerPassesTheChecksOfItsOwnRevision(
            String script, List<String> revision, String dialect, boolean servesHealer) {
        List<String> extra = new ArrayList<>(revision);
        if (script.equals("plugin.js")) {
            extra.addAll(List.of("--latency", "0"));
        }
        Peer p = peer(script, extra.toArray(String[]::new));
        List<String> args = new ArrayList<>(List.of("conformance", "--endpoint", p.endpoint(), "--dialect", dialect));
        args.addAll(List.of(FIXTURES));
        Result r = conformanceInProcess(withHealer(args, p, true));

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output())
                .as(r.output())
                .containsPattern(COMPLIANT_WITHOUT_PEER)
                .doesNotContain("NOT COMPLIANT")
                .doesNotContainPattern("(?m)^(FAIL|WARNING) ")
                .contains("optional checks: ")
                .containsPattern("optional checks: \\d+ passed, 0 failed");
        if (dialect.equals("upstream-2026")) {
            assertThat(r.output())
                    .contains("PASS            required Request form: reserved field 1 (volume_id) alone"
                            + " names no source -> 3 INVALID_ARGUMENT on every RPC")
                    .contains("PASS            required Request form: reserved field 1 (volume_id) beside"
                            + " replication_source is ignored")
                    .contains("PASS            optional Identity: every optional RPC served is advertised");
        }
        if (servesHealer) {
            assertThat(r.output()).doesNotContain("NOT IMPLEMENTED required NodeHealer");
        }
    }

    @Test
    void anUpstreamPeerServingDestinationsUnadvertisedIsAWarningNotAFailure() {
        Peer p = plugin("--revision", "upstream-2026", "--defect", "no-destination-capability", "--latency", "0");
        List<String> args = new ArrayList<>(List.of(
                "conformance", "--endpoint", p.endpoint(), "--dialect", "upstream-2026", "--include-tag", "optional"));
        args.addAll(List.of(FIXTURES));
        Result r = conformanceInProcess(args);

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output())
                .contains("WARNING         optional Identity: every optional RPC served is advertised")
                .contains("-> WARNING: GetReplicationDestinationInfo is served but GetCapabilities does not advertise"
                        + " VolumeReplication.GET_REPLICATION_DESTINATION_INFO")
                .contains("warnings (not failures): 1 checks (identity/plugin/served-rpcs-advertised)")
                .containsPattern("(?m)^COMPLIANT for the checks run; (\\d+) required checks not run \\(\\1 were left"
                        + " out by --include-tag optional \\(run without it\\)\\): ");
    }

    @Test
    void aPeerThatReadsFieldOneFailsWhenClaimedToSpeakUpstream() {
        Peer p = plugin("--latency", "0");
        List<String> args = new ArrayList<>(List.of(
                "conformance",
                "--endpoint",
                p.endpoint(),
                "--dialect",
                "upstream-2026",
                "--include-tag",
                "required",
                "--skip",
                "*/group/*"));
        args.addAll(List.of(FIXTURES));
        Result r = conformanceInProcess(args);

        assertThat(r.exit()).as(r.output()).isEqualTo(1);
        assertThat(r.output().lines().filter(l -> l.startsWith("FAIL ")).map(l -> l.replaceAll(" \\(\\d+ ms\\)$", "")))
                .as(r.output())
                .containsExactlyInAnyOrder(
                        "FAIL            required Request form: reserved field 1 (volume_id) alone names no source -> 3"
                                + " INVALID_ARGUMENT on every RPC",
                        "FAIL            required Request form: reserved field 1 (volume_id) beside replication_source is"
                                + " ignored -> 0 OK on every RPC [field 1 names a volume that does not exist]")
                .isNotEmpty();
    }

    static Stream<Arguments> defects() {
        return Stream.of(
                Arguments.of(
                        "wrong-precondition-code",
                        false,
                        "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION [volume, replication disabled]"),
                // The same enable again is an edge of the state the first one led to (vendor-ci.md, idempotency).
                Arguments.of(
                        "not-idempotent-enable",
                        false,
                        "EnableVolumeReplication: allowed -> 0 OK, then primary [volume, replication enabled, primary]"),
                Arguments.of(
                        "info-without-last-sync-time", false, "GetVolumeReplicationInfo: last_sync_time is REQUIRED"),
                Arguments.of("negative-bytes", false, "GetVolumeReplicationInfo: last_sync_bytes MUST NOT be negative"),
                Arguments.of(
                        "ignore-secrets",
                        false,
                        "EnableVolumeReplication: Not authenticated -> 16 UNAUTHENTICATED [volume, wrong secrets, before and after a valid call]"),
                // resync-never-ready: with one site the resync checks report NOT RUN (no primary to copy from: issue
                // 35);
                // the same defect between two sites is caught by
                // ExplorationDefect.RESYNC_NEVER_READY_WITH_PEER_PRIMARY.
                Arguments.of(
                        "unimplemented-enable",
                        false,
                        "EnableVolumeReplication: allowed -> 0 OK, then primary [volume, replication disabled]"),
                Arguments.of(
                        "accept-missing-source",
                        false,
                        "EnableVolumeReplication: Missing required field -> 3 INVALID_ARGUMENT [no replication_source, no volume_id]"),
                Arguments.of(
                        "not-found-as-unknown",
                        false,
                        "EnableVolumeReplication: Replication Source does not exist -> 5 NOT_FOUND [volume "),
                Arguments.of(
                        "demote-skips-precondition",
                        false,
                        "DemoteVolume: Replication Source in [sic, the spec's words] not replicated -> 9 FAILED_PRECONDITION [volume,"
                                + " replication disabled]"),
                Arguments.of(
                        "resync-without-demote",
                        false,
                        "ResyncVolume: Replication Source is not replicated or Replication Source is not demoted -> 9 FAILED_PRECONDITION [volume, replication enabled, primary"),
                Arguments.of(
                        "info-when-demoted",
                        false,
                        "GetVolumeReplicationInfo: Replication Source is not replicated or not promoted -> 9 FAILED_PRECONDITION [volume, replication enabled, secondary"),
                Arguments.of(
                        "healer-accepts-relative-staging",
                        true,
                        "NodeHealer: Missing required field -> 3 INVALID_ARGUMENT [staging_target_path relative]"),
                Arguments.of("healer-empty-message", true, "NodeHealer: message is REQUIRED in every answer"),
                Arguments.of(
                        "healer-accepts-missing-path",
                        true,
                        "NodeHealer: Missing required field -> 3 INVALID_ARGUMENT [volume_path missing]"),
                Arguments.of("healer-found-everything", true, "NodeHealer: Volume does not exist -> 5 NOT_FOUND"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("defects")
    void failsEachSingleDefectPluginWithTheNamedCheck(String defect, boolean healer, String failingCheck) {
        Peer p = plugin("--defect", defect, "--latency", "0");
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        int exit = cli.execute(quickConformanceArgs(p, healer).toArray(String[]::new));

        String report = out.toString();
        assertThat(exit).as(report).isEqualTo(1);
        assertThat(report).as(report).contains("NOT COMPLIANT");
        // One defect, one FAIL (issue 49): the named check fails; what follows from it is NOT RUN, naming it.
        assertThat(report.lines().filter(l -> l.startsWith("FAIL ")))
                .as("the FAIL lines of the report:\n%s", report)
                .anySatisfy(line -> assertThat(line).contains("required " + failingCheck));
        assertThat(report).doesNotContain("\\n");
    }
}

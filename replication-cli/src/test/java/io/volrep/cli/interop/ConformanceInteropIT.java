package io.volrep.cli.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.cli.VolrepCommand;
import io.volrep.cli.interop.Interop.Peer;
import io.volrep.cli.interop.Interop.Result;
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
    private static final String[] FIXTURES = {"--volume", "vol-0", "--volume", "vol-1", "--volume-group", "grp-0",
            "--secret", "user=admin", "--resync-timeout", "3s"};
    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
    }

    private Peer plugin(String... extra) {
        var socket = Interop.socketPath();
        List<String> args = new ArrayList<>(List.of("--listen", "unix://" + socket, "--secret", "user=admin", "--quiet"));
        args.addAll(List.of(extra));
        Peer p = Peer.start(socket, Interop.node("plugin.js", args.toArray(String[]::new)));
        cleanup.register(p);
        return p;
    }

    private static List<String> conformanceArgs(Peer p, boolean healer) {
        List<String> args = new ArrayList<>(List.of("conformance", "--endpoint", p.endpoint()));
        args.addAll(List.of(FIXTURES));
        return withHealer(args, p, healer);
    }

    /** One volume and the required checks only: what a defect needs to be caught, in a fraction of the time. */
    private static List<String> quickConformanceArgs(Peer p, boolean healer) {
        List<String> args = new ArrayList<>(List.of("conformance", "--endpoint", p.endpoint(), "--volume", "vol-0",
                "--volume-group", "grp-0", "--secret", "user=admin", "--resync-timeout", "2s",
                "--include-tag", "required"));
        return withHealer(args, p, healer);
    }

    private static List<String> withHealer(List<String> args, Peer p, boolean healer) {
        if (healer) {
            args.addAll(List.of("--healer-endpoint", p.endpoint(), "--healer-volume", "vol-0=/var/lib/kubelet/pods/i/vol-0"));
        }
        return args;
    }

    @Test
    void jarPassesTheIndependentCorrectPluginWithHealer() {
        Peer p = plugin();
        Result r = Interop.run(Interop.volrep(conformanceArgs(p, true).toArray(String[]::new)), Interop.RUN_TIMEOUT);

        assertThat(r.output()).as(r.output()).contains("COMPLIANT").contains("required checks: ")
                .contains(", 0 failed").contains("NodeHealer").doesNotContain("\nFAIL ").doesNotContain("admin");
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

        assertThat(r.output()).as(r.output()).contains("COMPLIANT").contains(", 0 failed")
                .contains("for transient answers").doesNotContain("\nFAIL ");
        assertThat(r.exit()).as(r.output()).isZero();
    }

    static Stream<Arguments> defects() {
        return Stream.of(
                Arguments.of("wrong-precondition-code", false,
                        "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION [volume, replication disabled]"),
                Arguments.of("not-idempotent-enable", false,
                        "EnableVolumeReplication: allowed -> 0 OK, then primary [volume, replication disabled]"),
                Arguments.of("info-without-last-sync-time", false, "GetVolumeReplicationInfo: last_sync_time is REQUIRED"),
                Arguments.of("negative-bytes", false, "GetVolumeReplicationInfo: last_sync_bytes MUST NOT be negative"),
                Arguments.of("ignore-secrets", false,
                        "EnableVolumeReplication: Not authenticated -> 16 UNAUTHENTICATED [volume, wrong secrets, before and after a valid call]"),
                // resync-never-ready: with one site the resync checks report NOT RUN (no primary to copy from: issue 35);
                // the same defect between two sites is caught by ExplorationDefect.RESYNC_NEVER_READY_WITH_PEER_PRIMARY.
                Arguments.of("unimplemented-enable", false,
                        "EnableVolumeReplication: allowed -> 0 OK, then primary [volume, replication disabled]"),
                Arguments.of("accept-missing-source", false,
                        "EnableVolumeReplication: Missing required field -> 3 INVALID_ARGUMENT [no replication_source, no volume_id]"),
                Arguments.of("not-found-as-unknown", false,
                        "EnableVolumeReplication: Replication Source does not exist -> 5 NOT_FOUND [volume "),
                Arguments.of("demote-skips-precondition", false,
                        "DemoteVolume: Replication Source in not replicated -> 9 FAILED_PRECONDITION [volume, replication disabled]"),
                Arguments.of("resync-without-demote", false,
                        "ResyncVolume: Replication Source is not replicated or Replication Source is not demoted -> 9 FAILED_PRECONDITION [volume, replication enabled, primary"),
                Arguments.of("info-when-demoted", false,
                        "GetVolumeReplicationInfo: Replication Source is not replicated or not promoted -> 9 FAILED_PRECONDITION [volume, replication enabled, secondary"),
                Arguments.of("healer-accepts-relative-staging", true,
                        "NodeHealer: Missing required field -> 3 INVALID_ARGUMENT [staging_target_path relative]"),
                Arguments.of("healer-empty-message", true, "NodeHealer: message is REQUIRED in every answer"),
                Arguments.of("healer-accepts-missing-path", true,
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
        assertThat(report.lines().filter(l -> l.startsWith("FAIL ")))
                .as("the FAIL lines of the report:\n%s", report)
                .anySatisfy(line -> assertThat(line).contains("required " + failingCheck));
    }
}

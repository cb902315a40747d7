package io.volrep.cli;

import io.volrep.api.SpecDialect;
import io.volrep.api.internal.SafeText;
import io.volrep.testkit.Check;
import io.volrep.testkit.ComplianceReport;
import io.volrep.testkit.ConformanceChecks;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ConformanceContext;
import io.volrep.testkit.ConformanceRunner;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code volrep conformance}: runs the conformance suite against a plugin (or the embedded reference) and
 * exits 0 exactly when every required check passed.
 *
 * <pre>
 * volrep conformance --endpoint unix:///csi/csi-addons.sock --volume pvc-1 --secret user=admin --reports-dir out
 * volrep conformance                    # the embedded reference plugin: vol-0..vol-3, grp-0, user=admin
 * volrep conformance --dialect v0.1.3 --endpoint unix:///csi/legacy.sock --volume pvc-1
 * volrep conformance --endpoint unix:///csi/csi-addons.sock --volume pvc-1 --healer-volume pvc-1=/mnt/pvc-1
 * volrep conformance --list-checks                       # every check's id, level and name
 * volrep conformance --skip isolation/all-fixtures/concurrent --skip 'PromoteVolume/group/*' --skip '*&#47;group/*'
 * volrep conformance --endpoint unix:///site-a/csi-addons.sock --peer-endpoint unix:///site-b/csi-addons.sock \
 *         --volume vol-0 --settle-timeout 2m
 * </pre>
 */
@Command(
        name = "conformance",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run the CSI-Addons replication conformance suite against a plugin.",
            "Without --endpoint it tests the embedded reference plugin (in-process, two sites) with fixtures "
                    + "vol-0..vol-3, grp-0, secret user=admin, node volume vol-0="
                    + ConformanceCommand.EMBEDDED_HEALER_PATH + " (staged at "
                    + ConformanceCommand.EMBEDDED_STAGING_PATH + ") and block volume vol-1=/dev/volrep/vol-1.",
            "With --peer-endpoint it drives the fixtures' replicas on the peer site too (resync while the peer is "
                    + "primary, failover round trips A -> B -> A, both sites restored); without it those checks "
                    + "report NOT RUN.",
            "NodeHealer checks run when --healer-volume is given (against --healer-endpoint, default --endpoint); "
                    + "Identity checks always (not implemented when the plugin has no Identity).",
            "Fixture volumes and groups must exist and have replication disabled; every check returns them "
                    + "to that state.",
            "Exit status: 0 when every required check that ran passed (with --require-all: and every required check "
                    + "ran), 1 otherwise, 2 on a usage error."
        })
public final class ConformanceCommand extends Subcommand {
    static final List<String> EMBEDDED_VOLUMES = List.of("vol-0", "vol-1", "vol-2", "vol-3");
    static final List<String> EMBEDDED_GROUPS = List.of("grp-0");
    static final Map<String, String> EMBEDDED_SECRETS = Map.of("user", "admin");
    static final String EMBEDDED_HEALER_PATH = "/var/lib/volrep/vol-0";
    static final String EMBEDDED_STAGING_PATH = "/var/lib/volrep/staging/vol-0";
    static final Map<String, String> EMBEDDED_VOLUME_CONTEXT = Map.of("volrep.io/pool", "reference");

    @Option(
            names = "--endpoint",
            paramLabel = "URI",
            converter = Endpoint.TargetConverter.class,
            description = "The plugin: unix:///path, /path (a unix socket), host:port, dns:///host:port or "
                    + "inprocess:NAME.")
    String endpoint;

    @Option(
            names = "--peer-endpoint",
            paramLabel = "URI",
            converter = Endpoint.TargetConverter.class,
            description = "The peer site's plugin, where the fixtures' replicas live (their ids: what the plugin's "
                    + "GetReplicationDestinationInfo answers, or the same ids where it is not implemented). Enables "
                    + "the two-site checks, which report NOT RUN without it.")
    String peerEndpoint;

    @Option(
            names = "--volume",
            paramLabel = "ID",
            description =
                    "A fixture volume (existing, replication disabled). Repeatable; at least one with --endpoint.")
    List<String> volumes = new ArrayList<>();

    @Option(
            names = "--volume-group",
            paramLabel = "ID",
            description = "A fixture volume group (existing, replication disabled). Repeatable; group checks are "
                    + "skipped without one.")
    List<String> volumeGroups = new ArrayList<>();

    /** Valid secrets sent with every call; secret checks are skipped without one. */
    @Mixin
    SecretOptions secretOptions;

    @Option(
            names = {"--parameter", "--param"},
            paramLabel = "KEY=VALUE",
            description = "A plugin-specific parameter sent with every call that has parameters (e.g. "
                    + "mirroringMode=snapshot). Repeatable.")
    Map<String, String> parameters = new LinkedHashMap<>();

    @Option(
            names = "--dialect",
            paramLabel = "REVISION",
            defaultValue = "current",
            converter = ClientOptions.DialectConverter.class,
            description = "The replication spec revision the plugin speaks: current, upstream-2026, v0.1.3 or v0.1.0 "
                    + "(default ${DEFAULT-VALUE}). The suite sends that revision's messages and checks its rules and "
                    + "error rows (upstream-2026: field 1 volume_id is reserved; v0.1.0: no GetVolumeReplicationInfo, "
                    + "no groups). The embedded reference serves it too.")
    SpecDialect dialect;

    @Option(
            names = "--healer-endpoint",
            paramLabel = "URI",
            converter = Endpoint.TargetConverter.class,
            description = "The node plugin, for NodeHealer checks (default: --endpoint).")
    String healerEndpoint;

    @Option(
            names = "--healer-volume",
            paramLabel = "ID=PATH",
            description = "A node volume and its path, for NodeHealer checks. Repeatable.")
    Map<String, String> healerVolumes = new LinkedHashMap<>();

    @Option(
            names = "--healer-block-volume",
            paramLabel = "ID=PATH",
            description = "A raw block volume on the node and its device path, for the NodeHealer check of a block "
                    + "volume_capability (skipped without one).")
    Map<String, String> healerBlockVolumes = new LinkedHashMap<>();

    @Option(
            names = "--healer-staging-path",
            paramLabel = "PATH",
            description = "Where the first --healer-volume is staged, for the NodeHealer checks of long "
                    + "staging_target_path values (skipped without it; leave it out if the plugin does not stage).")
    String healerStagingPath;

    @Option(
            names = "--healer-volume-context",
            paramLabel = "KEY=VALUE",
            description =
                    "The first --healer-volume's volume context (as CreateVolume answered it), for the NodeHealer "
                            + "check that sends it (skipped without one). Repeatable.")
    Map<String, String> healerVolumeContext = new LinkedHashMap<>();

    @Option(
            names = "--resync-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "How long a resync may take to report ready (250ms, 30s, 2m, PT30S; default ${DEFAULT-VALUE}).")
    Duration resyncTimeout = ConformanceConfig.DEFAULT_RESYNC_TIMEOUT;

    @Option(
            names = {"--timeout", "--call-timeout"},
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "The deadline of each call the suite sends (default ${DEFAULT-VALUE}, because a check judges "
                    + "one answer and a plugin answers in seconds; raise it for slow storage, and see "
                    + "--settle-timeout for answers that are allowed to come late). --call-timeout is its old name.")
    Duration callTimeout = ConformanceConfig.DEFAULT_CALL_TIMEOUT;

    @Option(
            names = "--settle-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "How long a transient answer the tables allow (10 ABORTED, 14 UNAVAILABLE, Info's 5 NOT_FOUND "
                            + "\"details not available at the moment\" on a primary; a promote refused in the demotion window "
                            + "after the peer's demote) is polled before the check judges it (default ${DEFAULT-VALUE}). "
                            + "A required answer is never waited for.")
    Duration settleTimeout = ConformanceConfig.DEFAULT_SETTLE_TIMEOUT;

    @Option(
            names = "--parallel",
            paramLabel = "N",
            description = "How many checks run at once, each on fixtures no other running check holds (default: one "
                    + "per fixture volume and group). The report keeps its order.")
    Integer parallel;

    @Option(
            names = "--seed",
            paramLabel = "N",
            defaultValue = "0",
            description = "The seed of the lifecycle exploration's order (default ${DEFAULT-VALUE}); the statement "
                    + "prints it, and a run is repeated with the same seed.")
    long seed;

    @Option(names = "--reports-dir", paramLabel = "DIR", description = "Write JUnit XML reports into DIR.")
    Path reportsDir;

    @Option(
            names = {"-v", "--verbose"},
            description = "Print each call the suite sends, with the code it got, on stderr (secrets never shown).")
    boolean verbose;

    @Option(
            names = "--reference-log",
            description = "Without --endpoint: also print the embedded reference plugin's log line per call (INFO, "
                    + "on stderr; quiet by default so the report stays readable).")
    boolean referenceLog;

    @Option(
            names = "--include-tag",
            paramLabel = "TAG",
            description = "Run only checks with this tag: required or optional. Repeatable.")
    List<String> includeTags = new ArrayList<>();

    @Option(
            names = "--skip",
            paramLabel = "ID",
            description = "Skip the check with this id; * stands for any run of characters ('isolation/*', "
                    + "'*/group/*' for every check of a volume group, '*/auth-*' for every authentication check); "
                    + "the statement lists it as skipped on request. Repeatable. Ids: see --list-checks, the "
                    + "\"check ID\" line under a failure, or docs/check-ids.md.")
    List<String> skip = new ArrayList<>();

    @Option(
            names = "--require-all",
            description = "Strict: not compliant (exit 1) when a required check did not run (its fixtures not "
                    + "configured, no --peer-endpoint, or --skip). Without it such a run says \"COMPLIANT for the "
                    + "checks run; N required checks not run (why, and the option that runs them)\".")
    boolean requireAll;

    @Option(
            names = "--list-checks",
            description = "Print every check of this configuration (id, level, name) and exit without running them.")
    boolean listChecks;

    /** The slf4j-simple property setting the level of the SPI runtime's loggers (one INFO line per call). */
    static final String SPI_LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.log.io.volrep.spi";

    /** The slf4j-simple property setting the level of the suite's own call log (one DEBUG line per call). */
    static final String SUITE_CALLS_LOG_LEVEL_PROPERTY =
            "org.slf4j.simpleLogger.log." + ConformanceContext.class.getName();

    /**
     * For {@code volrep conformance -v}: turns the suite's call log on ({@code EnableVolumeReplication volume vol-0 ->
     * OK}, DEBUG), before any logger exists, as {@link #quietEmbeddedPluginLogs} does; an explicit {@code -D} wins.
     *
     * @return true when the level was raised
     */
    static boolean showSuiteCalls(String... args) {
        if (args.length == 0
                || !"conformance".equals(args[0])
                || System.getProperty(SUITE_CALLS_LOG_LEVEL_PROPERTY) != null) {
            return false;
        }
        for (String arg : args) {
            if (arg.equals("--")) {
                return false;
            }
            if (arg.equals("-v") || arg.equals("--verbose")) {
                System.setProperty(SUITE_CALLS_LOG_LEVEL_PROPERTY, "debug");
                return true;
            }
        }
        return false;
    }

    /**
     * For {@code volrep conformance} without {@code --endpoint} and without {@code --reference-log}: lowers the embedded
     * reference plugin's SPI logging to WARN, since its one INFO line per call (hundreds) would drown the report on
     * stderr. slf4j-simple fixes a logger's level when the logger is created, so this runs in {@code main} before
     * any command (or logger) exists; an explicit {@code -D} setting wins, and other commands (serve-reference
     * keeps its per-call lines) and in-process uses ({@link VolrepCommand#execute}) are left alone.
     *
     * @return true when the level was lowered
     */
    static boolean quietEmbeddedPluginLogs(String... args) {
        if (args.length == 0 || !"conformance".equals(args[0]) || System.getProperty(SPI_LOG_LEVEL_PROPERTY) != null) {
            return false;
        }
        for (String arg : args) {
            if (arg.equals("--endpoint")
                    || arg.startsWith("--endpoint=")
                    || arg.equals("--reference-log")
                    || arg.equals("--")) {
                return false;
            }
        }
        System.setProperty(SPI_LOG_LEVEL_PROPERTY, "warn");
        return true;
    }

    @Override
    public Integer call() {
        PrintWriter out = out();
        ConformanceConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
        List<Check> checks = ConformanceChecks.all().stream()
                .flatMap(g -> g.checks(config).stream())
                .toList();
        for (String id : skip) {
            if (checks.stream().noneMatch(c -> c.matches(id))) {
                throw usageError("--skip " + SafeText.escape(id) + ": no check has this id (see --list-checks)");
            }
        }
        if (listChecks) {
            int width = checks.stream().mapToInt(c -> c.id().length()).max().orElse(0);
            checks.forEach(c -> out.printf(
                    "%-" + width + "s %-8s %s%n", c.id(), c.requirement().tag(), c.name()));
            out.flush();
            return 0;
        }
        for (String target : new String[] {endpoint, healerEndpoint, peerEndpoint}) {
            String why = target == null ? null : Endpoint.whyUnreachable(target).orElse(null);
            if (why != null) { // one line, not a report of failed checks
                return VolrepCommand.cannotStart(
                        spec, new IllegalStateException("cannot reach the plugin at " + target + ": " + why));
            }
        }
        out.println("volrep conformance: " + (endpoint == null ? "embedded reference plugin (in-process)" : endpoint)
                + ", spec " + config.dialect());
        out.println("  volumes " + config.volumes() + ", volume groups " + config.volumeGroups() + ", "
                + config.secrets() + ", resync timeout " + config.resyncTimeout() + ", call timeout "
                + config.callTimeout());
        out.println("  node volumes " + config.healerVolumes()
                + config.healerStagingPath().map(p -> ", staged at " + p).orElse("")
                + (config.healerBlockVolumes().isEmpty() ? "" : ", block volumes " + config.healerBlockVolumes())
                + config.healerEndpoint().map(e -> " on " + e).orElse(""));
        out.println("  peer site "
                + (peerEndpoint != null
                        ? peerEndpoint
                        : endpoint == null
                                ? "embedded (the reference's second site, in-process)"
                                : "none: the two-site checks report NOT RUN")
                + ", settle timeout " + config.settleTimeout() + ", " + config.parallelism() + " checks at once,"
                + " exploration seed " + config.seed());
        out.println();
        out.flush();
        ConformanceRunner runner = ConformanceRunner.of(config).progress(out).includeTags(includeTags);
        if (reportsDir != null) {
            runner.reportsDir(reportsDir);
        }
        ComplianceReport report = runner.run();
        out.println();
        out.println(report.statement());
        if (reportsDir != null) {
            out.println("  JUnit XML: " + reportsDir.toAbsolutePath());
        }
        out.flush();
        return report.compliant() ? 0 : 1;
    }

    ConformanceConfig config() {
        ConformanceConfig.Builder b = ConformanceConfig.builder();
        Map<String, String> secrets = secretOptions.secrets();
        if (endpoint != null) {
            if (volumes.isEmpty()) {
                throw new IllegalArgumentException(
                        "--endpoint needs at least one --volume (an existing volume with " + "replication disabled)");
            }
            b.endpoint(endpoint).volumes(volumes).volumeGroups(volumeGroups).secrets(secrets);
            if (peerEndpoint != null) {
                b.peerEndpoint(peerEndpoint);
            }
        } else {
            if (peerEndpoint != null) {
                throw new IllegalArgumentException(
                        "--peer-endpoint needs --endpoint (the embedded reference brings its" + " own second site)");
            }
            // The embedded reference holds exactly the fixtures the suite is told about.
            List<String> vols = volumes.isEmpty() ? EMBEDDED_VOLUMES : volumes;
            List<String> groups = volumes.isEmpty() && volumeGroups.isEmpty() ? EMBEDDED_GROUPS : volumeGroups;
            Map<String, String> s = secrets.isEmpty() ? EMBEDDED_SECRETS : secrets;
            ReferenceDriver.Builder reference = ReferenceDriver.builder().requiredSecrets(s);
            vols.forEach(reference::volume);
            groups.forEach(reference::group);
            ReferencePair pair = reference.buildPair();
            ReferenceDriver driver = pair.siteA();
            b.driver(driver)
                    .peerDriver(pair.siteB())
                    .healerDriver(driver)
                    .volumeGroupDriver(driver)
                    .volumes(vols)
                    .volumeGroups(groups)
                    .secrets(s);
            if (healerVolumes.isEmpty() && healerEndpoint == null) {
                // Every NodeHealer input: a mounted volume, staged, with its context, and a block volume.
                b.healerVolume(vols.get(0), EMBEDDED_HEALER_PATH);
                if (healerStagingPath == null) {
                    b.healerStagingPath(EMBEDDED_STAGING_PATH);
                }
                if (healerVolumeContext.isEmpty()) {
                    b.healerVolumeContext(EMBEDDED_VOLUME_CONTEXT);
                }
                if (healerBlockVolumes.isEmpty() && vols.size() > 1) {
                    b.healerBlockVolume(vols.get(1), "/dev/volrep/" + vols.get(1));
                }
            }
        }
        b.dialect(dialect);
        b.enableParameters(parameters)
                .resyncTimeout(resyncTimeout)
                .callTimeout(callTimeout)
                .skipChecks(skip)
                .settleTimeout(settleTimeout)
                .seed(seed)
                .requireAll(requireAll);
        if (parallel != null) {
            b.parallelism(parallel);
        }
        if (healerEndpoint != null) {
            b.healerEndpoint(healerEndpoint);
        }
        healerVolumes.forEach(b::healerVolume);
        healerBlockVolumes.forEach(b::healerBlockVolume);
        if (healerStagingPath != null) {
            b.healerStagingPath(healerStagingPath);
        }
        b.healerVolumeContext(healerVolumeContext);
        return b.build();
    }
}

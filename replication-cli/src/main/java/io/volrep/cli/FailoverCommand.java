package io.volrep.cli;

import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.SafeText;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import io.volrep.client.reconcile.Destination;
import io.volrep.client.reconcile.DestinationResolver;
import io.volrep.client.reconcile.Failover;
import io.volrep.client.reconcile.FailoverProgress;
import io.volrep.client.reconcile.FailoverReport;
import io.volrep.client.reconcile.FailoverStep;
import io.volrep.client.reconcile.SourceFailover;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code volrep failover}: fail sources over from site A's plugin to site B's ({@link Failover}): live progress on
 * stderr, the per-source report on stdout. Exit 0 only when every source is primary on site B; 1 otherwise.
 *
 * <pre>
 * volrep failover --from unix:///site-a.sock --to unix:///site-b.sock --volume vol-0 --volume-group grp-0 \
 *     --destination vol-0=b-vol-0 --destination grp-0=b-grp-0 --secret user=admin
 * </pre>
 */
@Command(
        name = "failover",
        mixinStandardHelpOptions = true,
        description = {
            "Fail sources over from site A to site B: demote each on A, then promote its destination on B"
                    + " and verify it. Safe to re-run: what is done stays as it is.",
            "Destinations are never guessed: without --destination, site A is asked"
                    + " (GetReplicationDestinationInfo); --assume-same-ids takes the same ids on site B.",
            "After A's demote, B's promote is retried without force while B still refuses it (the demotion"
                    + " has not reached B yet), within --demotion-wait; B's first completed sync is waited for"
                    + " within --timeout.",
            "With A unreachable, nothing is promoted unless --force-if-unreachable is given.",
            "Exit 0 only when every source is primary on site B."
        })
public final class FailoverCommand extends Subcommand {

    @Option(
            names = "--from",
            required = true,
            paramLabel = "URI",
            converter = Endpoint.TargetConverter.class,
            description = "Site A's plugin (primary now): unix:///path, /path, dns:///host:port or host:port.")
    String from;

    @Option(
            names = "--to",
            required = true,
            paramLabel = "URI",
            converter = Endpoint.TargetConverter.class,
            description = "Site B's plugin (to become primary).")
    String to;

    @Option(names = "--volume", paramLabel = "ID", description = "A volume on site A; repeatable.")
    List<String> volumes = new ArrayList<>();

    @Option(names = "--volume-group", paramLabel = "ID", description = "A volume group on site A; repeatable.")
    List<String> groups = new ArrayList<>();

    @Option(
            names = "--destination",
            paramLabel = "SRC=DST",
            description = "The id on site B of source SRC on site A; repeatable. Without any, site A is asked"
                    + " (GetReplicationDestinationInfo; 'not known yet', 14 UNAVAILABLE, is retried within --timeout):"
                    + " a source whose destination site A does not give fails before anything changes on either site;"
                    + " only a site A that answers 12 UNIMPLEMENTED and does not advertise the RPC means the same ids."
                    + " With some, a source without one fails and nothing is sent for it (unless --assume-same-ids).")
    Map<String, String> destinations = new LinkedHashMap<>();

    @Option(
            names = "--assume-same-ids",
            description = "Each source's destination on site B has the source's id (sites that share ids); site A"
                    + " is not asked. With --destination: for the sources it does not name. The report says"
                    + " 'same ids' for them.")
    boolean assumeSameIds;

    /** Site A's secrets: {@code --secret KEY=VALUE}, {@code --secrets-file PATH}. */
    @CommandLine.Mixin
    SecretOptions secretOptions = new SecretOptions();

    @Option(
            names = "--to-secret",
            paramLabel = "KEY=VALUE",
            description = "A secret for site B; repeatable (default: site A's). Never printed, but visible to other"
                    + " users in the process list: prefer --to-secrets-file.")
    Map<String, String> toSecrets = new LinkedHashMap<>();

    @Option(
            names = "--to-secrets-file",
            paramLabel = "PATH",
            description = "Site B's secrets from a KEY=VALUE file or a Kubernetes Secret directory.")
    Path toSecretsFile;

    @Option(
            names = "--force-if-unreachable",
            description = "When site A cannot be reached, promote on site B with force. Force can leave two primaries"
                    + " if A is in fact still running: use it only when A is known down.")
    boolean forceIfUnreachable;

    @Option(
            names = "--demotion-wait",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "2m",
            description = "After site A's demote, how long site B's promote is sent again (without force, with"
                    + " back-off) while site B refuses it (9 or 10) because the demotion has not reached it yet;"
                    + " real storage takes seconds (default: 2m). Never forced while site A answers.")
    Duration demotionWait;

    @Option(
            names = "--parallel",
            paramLabel = "N",
            defaultValue = "4",
            description = "How many sources are failed over at once (default: ${DEFAULT-VALUE}).")
    int parallel;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "30s",
            description = "Budget of each call, retries included (default: 30s, because a site silent that long"
                    + " counts as unreachable, and a failover has a few calls per source to make). Site B's first"
                    + " completed sync after its promote must be reported within it.")
    Duration timeout;

    @Option(
            names = "--dialect",
            paramLabel = "REVISION",
            defaultValue = "current",
            converter = ClientOptions.DialectConverter.class,
            description = "The replication spec revision both sites' plugins speak: current, upstream-2026, v0.1.3 or"
                    + " v0.1.0 (default: ${DEFAULT-VALUE}). See docs/compatibility.md.")
    SpecDialect dialect = SpecDialect.CURRENT;

    @Option(
            names = {"-v", "--verbose"},
            description = "Print each call to either site on stderr as it is attempted: its code and the back-off"
                    + " chosen (secrets never shown).")
    boolean verbose;

    @Override
    public Integer call() {
        List<ReplicationSource> sources = sources();
        if (parallel < 1) {
            throw usageError("--parallel must be at least 1");
        }
        FailoverReport report;
        Map<String, String> secrets;
        Map<String, String> bSecrets = new LinkedHashMap<>();
        try {
            secrets = secretOptions.secrets();
            if (toSecretsFile != null) {
                bSecrets.putAll(SecretOptions.read(toSecretsFile, SecretOptions.warnings(spec)));
            }
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw usageError(e.getMessage());
        }
        bSecrets.putAll(toSecrets);
        SiteNames sites = SiteNames.of(from, to);
        Consumer<FailoverProgress> listener;
        try {
            listener = FailoverTestHook.wrap(
                    new FailoverProgressDisplay(err(), VolrepCommand.onTerminal(), sites),
                    System.getenv(FailoverTestHook.VARIABLE),
                    err(),
                    System.in);
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
        try (ReplicationClient a = client(from, secrets);
                ReplicationClient b = client(to, bSecrets.isEmpty() ? secrets : bSecrets)) {
            // Without --destination the failover asks site A itself and guesses nothing (see Failover).
            Failover.Builder failover = Failover.builder()
                    .from(a)
                    .to(b)
                    .sources(sources)
                    .assumeSameIds(assumeSameIds)
                    .forceIfUnreachable(forceIfUnreachable)
                    .parallelism(parallel)
                    .callBudget(timeout)
                    .demotionWait(demotionWait)
                    .siteNames(sites.from(), sites.to())
                    .listener(listener);
            if (!destinations.isEmpty()) {
                failover.resolver(DestinationResolver.ids(destinations));
            }
            report = failover.build().run();
        }
        print(out(), report, sites);
        if (report.allPrimaryOnB()) {
            return 0;
        }
        PrintWriter err = err();
        long notDone = report.sources().stream().filter(s -> !s.primaryOnB()).count();
        err.println("error: " + notDone + " of " + report.sources().size() + " source(s) not primary on " + sites.to()
                + ": "
                + report.sources().stream()
                        .filter(s -> !s.primaryOnB())
                        .findFirst()
                        .flatMap(SourceFailover::whyNot)
                        .orElse("")
                + (notDone > 1 ? " (and others, see the report)" : ""));
        err.flush();
        return CallCommand.EXIT_CALL_FAILED;
    }

    private List<ReplicationSource> sources() {
        if (volumes.isEmpty() && groups.isEmpty()) {
            throw usageError("Missing required option: at least one '--volume=ID' or '--volume-group=ID'");
        }
        List<ReplicationSource> sources = new ArrayList<>();
        try {
            volumes.forEach(id -> sources.add(ReplicationSource.volume(id)));
            groups.forEach(id -> sources.add(ReplicationSource.volumeGroup(id)));
        } catch (InvalidArgumentException e) {
            throw usageError(e.getMessage());
        }
        return sources;
    }

    private ReplicationClient client(String target, Map<String, String> secrets) {
        // Every call, the destination look-up on site A included, within the failover's budget (--timeout); the
        // CLI's equal jitter keeps gaps growing (see ClientOptions).
        RetryPolicy.Builder policy =
                RetryPolicy.spec().toBuilder().jitter(RetryPolicy.Jitter.EQUAL).totalTimeout(timeout);
        if (timeout.compareTo(RetryPolicy.spec().perAttemptTimeout()) < 0) {
            policy.perAttemptTimeout(timeout);
        }
        ReplicationClient.Builder b = ReplicationClient.builder()
                .target(target)
                .retry(policy.build())
                .dialect(dialect)
                .secrets(SecretsProvider.of(secrets));
        if (verbose) {
            b.listener(Progress.printingAttempts(err(), target + ": "));
        }
        return b.build();
    }

    /** Where a destination came from, as the report's last column says it. */
    static String origin(Destination.Origin origin, SiteNames sites) {
        return switch (origin) {
            case SITE_A -> sites.from();
            case CALLER -> "--destination";
            case SAME_IDS -> "same ids";
        };
    }

    private void print(PrintWriter out, FailoverReport report, SiteNames sites) {
        String row = "%-28s %-28s %-"
                + Math.max(14, sites.step(FailoverStep.PRIMARY_ON_B).length()) + "s %-"
                + Math.max(12, ("ON " + sites.from()).length()) + "s %-6s %-30s %s%n";
        out.printf(
                row,
                "SOURCE (" + sites.from() + ")",
                "DESTINATION (" + sites.to() + ")",
                "RESULT",
                "ON " + sites.from(),
                "FORCED",
                "LAST SYNC (" + sites.to() + ")",
                "DESTINATION FROM");
        for (SourceFailover s : report.sources()) {
            out.printf(
                    row,
                    SafeText.escape(s.source().toString()),
                    s.destination()
                            .map(d -> SafeText.escape(d.source().toString()))
                            .orElse("?"),
                    sites.step(s.step()),
                    s.siteA().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                    s.forced() ? "yes" : "no",
                    s.lastSync().map(SyncText::time).orElse("-"),
                    s.destinationOrigin().map(o -> origin(o, sites)).orElse("-"));
            s.lastSync().ifPresent(info -> out.println("  last sync (" + sites.to() + "): " + SyncText.summary(info)));
            s.whyNot().ifPresent(w -> out.println("  why not: " + w));
            s.destination()
                    .filter(d -> !d.memberVolumeIds().isEmpty())
                    .ifPresent(d -> d.memberVolumeIds()
                            .forEach((m, dm) ->
                                    out.println("  member " + SafeText.escape(m) + " -> " + SafeText.escape(dm))));
            if (!s.primaryOnB()) {
                new FailoverFinish(this, sites).print(out, s);
            }
        }
        out.println("failover: "
                + report.sources().stream().filter(SourceFailover::primaryOnB).count() + " of "
                + report.sources().size() + " primary on " + sites.to() + " (took "
                + report.took().toMillis() + " ms)");
        out.flush();
    }
}

package io.volrep.client.reconcile;

import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.Arguments;
import io.volrep.api.internal.SafeText;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Fails replication sources over from site A's plugin to site B's: for each source, resolve its destination on B,
 * check B (GetVolumeReplicationInfo: reachable, the destination exists, already primary?), demote the source on A,
 * promote the destination on B, verify B with GetVolumeReplicationInfo, and report.
 *
 * <pre>{@code
 * try (ReplicationClient a = ReplicationClient.builder().target("unix:///site-a/csi-addons.sock").build();
 *      ReplicationClient b = ReplicationClient.builder().target("unix:///site-b/csi-addons.sock").build()) {
 *     FailoverReport report = Failover.builder().from(a).to(b)
 *             .source(ReplicationSource.volume("vol-0"))
 *             .source(ReplicationSource.volumeGroup("grp-0"))
 *             .resolver(DestinationResolver.ids(Map.of("vol-0", "b-vol-0", "grp-0", "b-grp-0")))
 *             .parallelism(4)
 *             .build().run();
 *     System.exit(report.allPrimaryOnB() ? 0 : 1);
 * }
 * }</pre>
 *
 * <p><b>Destinations are never guessed.</b> Without {@link Builder#resolver} and {@link Builder#assumeSameIds}, site
 * A is asked (GetReplicationDestinationInfo, retried with back-off while it answers 14 UNAVAILABLE "not known yet",
 * within {@link Builder#callBudget}). Any failure of that look-up (still 14, 13, a malformed or oversized answer,
 * A unreachable) fails the source before anything changes on either site; only a site A that answers 12
 * UNIMPLEMENTED and does not advertise {@code GET_REPLICATION_DESTINATION_INFO} (a plugin that predates the RPC)
 * lets the same id be assumed. Each source's {@link Destination#origin()} says where its destination came from.
 *
 * <p><b>Order.</b> B is promoted only after A answered DemoteVolume with OK: at no time are both primary, and a
 * plugin that checks its peer before an unforced promote (the storage's split-brain guard) agrees. A is demoted
 * only after B answered the check: a wrong destination id, wrong secrets for B or an unreachable B fail the source
 * with nothing changed on either site.
 *
 * <p><b>The demotion window.</b> Real storage refuses an unforced promote for a while after the peer's demote, until
 * the demotion has arrived (Ceph RBD: 1-5 s, answered 9 FAILED_PRECONDITION or 10 ABORTED by its drivers). After its
 * own demote on A answered OK, the failover sends B's PromoteVolume again, without force, with the policy's capped
 * back-off, while B answers 9 or 10, for at most {@link Builder#demotionWait} (default 2 minutes); the listener hears
 * what it waits for. Unlike the reference orchestrator, which answers a 9 with an immediate forced promote, it never
 * forces while A answers: in this window force loses what the demotion carries and leaves two primaries.
 *
 * <p><b>Verification.</b> Right after a promote, B may have no completed sync to report: GetVolumeReplicationInfo
 * answers 5 NOT_FOUND ("details not available at the moment") or 14 UNAVAILABLE. The failover polls it within the call
 * budget; the report holds B's first completed sync ({@link SourceFailover#lastSync()}), or the source fails with
 * "no completed sync within the budget" (B stays primary).
 *
 * <p><b>Disaster mode.</b> Give the destinations ({@link Builder#resolver}, a map recorded beforehand) or assume
 * the same ids: asking site A needs site A. When DemoteVolume on A gets no answer within {@link Builder#callBudget(Duration)}
 * (14 UNAVAILABLE or 4 DEADLINE_EXCEEDED after the retries), site A is taken as down. A destination that already
 * is primary on B is reported done (a re-run after a forced failover forces nothing again). Otherwise B is
 * promoted with {@code force} only when {@link Builder#forceIfUnreachable(boolean)} allows it; else the source is
 * {@link FailoverStep#REFUSED} and nothing is promoted. Any other answer of A (a source not replicated, wrong
 * secrets) fails the source without touching B.
 *
 * <p><b>Re-running.</b> Every step is idempotent (DemoteVolume of a secondary and PromoteVolume of a primary change
 * nothing), so running the same failover again after an interruption (the orchestrator killed between any two steps,
 * a plugin restarted, a call without answer) completes what was left from whatever state the sites hold, without
 * force, and leaves done sources as they are: A demoted and B not promoted yet (a re-run promotes B), B promoted but
 * not verified (a re-run verifies it and demotes A again). B answering the check with 5 NOT_FOUND is either a missing
 * destination or a primary with no completed sync yet; site A's GetVolumeReplicationInfo tells them apart (a primary
 * A: the destination is missing, and nothing changes), and otherwise B is asked again within the call budget. Each
 * source's {@link SourceFailover#state()} says where it stands when the run could not finish it. At most
 * {@link Builder#parallelism(int)} sources are in progress at once; no thread waits.
 */
public final class Failover {
    /**
     * How long B's unforced promote is retried by default while B refuses it (9 or 10) after A's demote: real storage
     * takes seconds to deliver a demotion (Ceph RBD: 1-5 s), slow or busy storage longer.
     */
    public static final Duration DEFAULT_DEMOTION_WAIT = Duration.ofMinutes(2);

    private final ReplicationClient siteA;
    private final ReplicationClient siteB;
    private final List<ReplicationSource> sources;
    /** The caller's resolver (with the same-id fallback when asked), or null: ask site A. */
    private final DestinationResolver resolver;

    private final boolean forceIfUnreachable;
    private final Duration demotionWait;
    private final Duration callBudget;
    private final int parallelism;
    private final RetryPolicy policyA;
    private final RetryPolicy policyB;
    private final Function<ReplicationInfo, Condition.Status> replicating;
    private final Consumer<FailoverProgress> listener;
    /** How texts name site A and site B ({@link Builder#siteNames}). */
    private final String nameA;

    private final String nameB;

    private Failover(Builder b) {
        this.siteA = Objects.requireNonNull(b.siteA, "from (site A's client)");
        this.siteB = Objects.requireNonNull(b.siteB, "to (site B's client)");
        if (b.sources.isEmpty()) {
            throw new IllegalArgumentException("no source to fail over");
        }
        this.sources = List.copyOf(b.sources);
        this.resolver = b.resolver == null
                ? (b.assumeSameIds ? DestinationResolver.identity() : null)
                : b.assumeSameIds ? b.resolver.orElse(DestinationResolver.identity()) : b.resolver;
        this.forceIfUnreachable = b.forceIfUnreachable;
        this.demotionWait = b.demotionWait;
        this.callBudget = b.callBudget;
        this.parallelism = b.parallelism;
        this.policyA = withBudget(siteA.retryPolicy(), b.callBudget);
        this.policyB = withBudget(siteB.retryPolicy(), b.callBudget);
        this.replicating = b.replicating;
        this.listener = b.listener;
        this.nameA = b.nameA;
        this.nameB = b.nameB;
    }

    /**
     * A builder: no sources, destinations asked from site A, no force, parallelism 4, 30 s per call, a demotion wait
     * of {@link #DEFAULT_DEMOTION_WAIT}.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Runs the failover and waits for the report. */
    public FailoverReport run() {
        return Steps.await(runAsync(), "failing over");
    }

    /** Runs the failover without blocking; the report lists every source, whatever happened to it. */
    public CompletableFuture<FailoverReport> runAsync() {
        Instant start = Instant.now();
        SourceFailover[] outcomes = new SourceFailover[sources.size()];
        for (ReplicationSource s : sources) {
            notify(s, null, FailoverStep.PENDING, "");
        }
        AtomicInteger next = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < Math.min(parallelism, sources.size()); w++) {
            workers.add(work(next, outcomes));
        }
        return CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                .thenApply(v -> new FailoverReport(List.of(outcomes), Duration.between(start, Instant.now())));
    }

    /** One worker: takes the next source when its last one is finished. */
    private CompletableFuture<Void> work(AtomicInteger next, SourceFailover[] outcomes) {
        int i = next.getAndIncrement();
        if (i >= sources.size()) {
            return CompletableFuture.completedFuture(null);
        }
        return new One(sources.get(i)).run().thenCompose(outcome -> {
            outcomes[i] = outcome;
            return work(next, outcomes);
        });
    }

    private void notify(ReplicationSource source, Destination destination, FailoverStep step, String detail) {
        if (listener != null) {
            listener.accept(new FailoverProgress(source, Optional.ofNullable(destination), step, detail));
        }
    }

    private static RetryPolicy withBudget(RetryPolicy policy, Duration budget) {
        RetryPolicy.Builder b = policy.toBuilder().totalTimeout(budget);
        if (budget.compareTo(policy.perAttemptTimeout()) < 0) {
            b.perAttemptTimeout(budget);
        }
        return b.build();
    }

    /** The failover of one source. */
    private final class One {
        private final ReplicationSource source;
        private final List<String> calls = new ArrayList<>();
        private Destination destination;
        private SourceFailover.SiteA siteAOutcome = SourceFailover.SiteA.NOT_TRIED;
        private boolean forced;
        private ReplicationInfo info;
        /** What the answers say of the sites: primary on B (found or promoted), B's promote unanswered. */
        private boolean primaryOnB;

        private boolean promoteUnanswered;

        One(ReplicationSource source) {
            this.source = source;
        }

        CompletableFuture<SourceFailover> run() {
            step(FailoverStep.RESOLVING, "");
            if (resolver == null) {
                return askSiteA();
            }
            CompletableFuture<Destination> resolved;
            try {
                resolved = Objects.requireNonNull(resolver.resolve(source), "resolver answered null");
            } catch (RuntimeException e) {
                resolved = CompletableFuture.failedFuture(e);
            }
            return resolved.handle((d, t) -> {
                        if (t != null || d == null) {
                            Throwable cause =
                                    t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
                            return finished(
                                    FailoverStep.FAILED,
                                    "destination not resolved: "
                                            + (cause == null
                                                    ? "no destination"
                                                    : SafeText.escape(String.valueOf(cause.getMessage())))
                                            + "; nothing sent to either site");
                        }
                        return resolved(d);
                    })
                    .thenCompose(Function.identity());
        }

        private CompletableFuture<SourceFailover> resolved(Destination d) {
            if (d.source().kind() != source.kind()) {
                return finished(
                        FailoverStep.FAILED,
                        "destination " + SafeText.escape(d.source().toString())
                                + " is not of the source's kind; nothing sent to either site");
            }
            destination = d;
            return checkB();
        }

        /**
         * GetReplicationDestinationInfo on A, within the call budget (14 UNAVAILABLE is retried with back-off by the
         * policy). Only a plugin that does not know the RPC (12, and not advertised) lets the same id be assumed.
         */
        private CompletableFuture<SourceFailover> askSiteA() {
            return Steps.call(
                    this::record,
                    "A GetReplicationDestinationInfo",
                    () -> siteA.source(source)
                            .destinationCall()
                            .retryPolicy(policyA)
                            .callAsync(),
                    answer -> resolved(Destination.answeredBySiteA(source, answer)),
                    e -> e.code() == StatusCode.UNIMPLEMENTED
                            ? unimplementedOnA()
                            : notResolved(
                                    "GetReplicationDestinationInfo on " + nameA + " answered " + Steps.describe(e)));
        }

        /** After 12 from A: the same id only when A does not advertise the RPC (no Identity service: none). */
        private CompletableFuture<SourceFailover> unimplementedOnA() {
            return Steps.call(
                    this::record,
                    "A GetCapabilities",
                    siteA::capabilitiesAsync,
                    caps -> caps.destinationInfo()
                            ? notResolved(nameA + " advertises GET_REPLICATION_DESTINATION_INFO but answered 12"
                                    + " UNIMPLEMENTED to it")
                            : resolved(Destination.sameIdAs(source)),
                    e -> e.code() == StatusCode.UNIMPLEMENTED
                            ? resolved(Destination.sameIdAs(source))
                            : notResolved("GetReplicationDestinationInfo on " + nameA
                                    + " answered 12 UNIMPLEMENTED and GetCapabilities answered " + Steps.describe(e)
                                    + ", so whether it advertises the RPC is unknown"));
        }

        private CompletableFuture<SourceFailover> notResolved(String why) {
            return finished(
                    FailoverStep.FAILED,
                    "destination not resolved: " + why + "; the destination is never"
                            + " guessed: give it (a resolver, --destination) or assume the same ids (assumeSameIds,"
                            + " --assume-same-ids); nothing changed on either site");
        }

        /**
         * Before anything changes: is B reachable, does the destination exist there, is it primary already? A wrong
         * destination id or wrong secrets for B are caught here, before A is demoted and no site would be primary.
         */
        private CompletableFuture<SourceFailover> checkB() {
            step(FailoverStep.CHECKING_B, "");
            return Steps.call(
                    this::record,
                    "B GetVolumeReplicationInfo",
                    this::infoOnB,
                    this::foundPrimaryOnB,
                    e -> switch (e.code()) {
                        // 9: enabled secondary (or not replicated: the promote says which); 12: the plugin cannot tell
                        case FAILED_PRECONDITION, UNIMPLEMENTED -> demoteOnA();
                        case NOT_FOUND -> notFoundOnB(e);
                        default -> unchanged("GetVolumeReplicationInfo on " + nameB + " answered " + Steps.describe(e));
                    });
        }

        private CompletableFuture<SourceFailover> foundPrimaryOnB(ReplicationInfo known) {
            info = known;
            primaryOnB = true;
            return demoteOnA();
        }

        /**
         * B answered 5: its destination does not exist, or it is primary with no completed sync to report yet (a run
         * stopped after its promote). Site A tells which: a source primary on A (Info answers, or 5 for a primary with
         * no sync yet) means the destination was never promoted, so B's 5 is a missing destination: nothing changes.
         * Otherwise (A not primary, or silent) B is asked again within the call budget, until it says.
         */
        private CompletableFuture<SourceFailover> notFoundOnB(ReplicationException onB) {
            return Steps.call(
                    this::record,
                    "A GetVolumeReplicationInfo",
                    () -> siteA.source(source).infoCall().retryPolicy(policyA).callAsync(),
                    primaryOnA -> missingOnB(onB, nameA + " is primary"),
                    e -> e.code() == StatusCode.NOT_FOUND
                            ? missingOnB(onB, nameA + " answered " + e.code().display() + " too")
                            : awaitBAfterPromote(e));
        }

        private CompletableFuture<SourceFailover> missingOnB(ReplicationException onB, String why) {
            return unchanged("GetVolumeReplicationInfo on " + nameB + " answered " + Steps.describe(onB) + " and "
                    + why + ", so the destination was never promoted: it does not exist on " + nameB
                    + " (a wrong destination id?)");
        }

        /** B's 5 while A is not primary: a promote whose first sync B has not reported yet, or a missing destination. */
        private CompletableFuture<SourceFailover> awaitBAfterPromote(ReplicationException onA) {
            Steps.Wait promoted = new Steps.Wait(
                    nameB + " to report on a destination that may have been promoted already (" + nameA
                            + " is not primary: " + Steps.answered(onA) + ")",
                    e -> e.code() == StatusCode.NOT_FOUND,
                    callBudget,
                    policyB,
                    detail -> step(FailoverStep.CHECKING_B, detail));
            return Steps.callUntil(
                    this::record,
                    "B GetVolumeReplicationInfo",
                    this::infoOnB,
                    promoted,
                    this::foundPrimaryOnB,
                    e -> switch (e.code()) {
                        case FAILED_PRECONDITION, UNIMPLEMENTED -> demoteOnA();
                        default -> unchanged("GetVolumeReplicationInfo on " + nameB + " answered " + Steps.describe(e));
                    },
                    (e, tries) -> unchanged("GetVolumeReplicationInfo on " + nameB + " answered "
                            + Steps.describe(e) + " for " + Steps.duration(callBudget) + " (" + tries + " tries) while "
                            + nameA + " is not primary (" + Steps.answered(onA) + "): the destination does not exist"
                            + " on " + nameB + ", or it is primary there and has reported no completed sync yet (ask "
                            + nameB + " again: GetVolumeReplicationInfo, volrep info)"));
        }

        /** Demotes on A; when B already is primary (a re-run), only so that A is not primary too. */
        private CompletableFuture<SourceFailover> demoteOnA() {
            step(FailoverStep.DEMOTING_ON_A, "");
            return Steps.call(
                    this::record,
                    "A DemoteVolume",
                    () -> siteA.source(source).demote().retryPolicy(policyA).callAsync(),
                    ok -> {
                        siteAOutcome = SourceFailover.SiteA.DEMOTED;
                        return primaryOnB
                                ? finished(FailoverStep.PRIMARY_ON_B, "already primary on " + nameB)
                                : promoteOnB(false);
                    },
                    e -> {
                        boolean unreachable = unanswered(e);
                        siteAOutcome = unreachable ? SourceFailover.SiteA.UNREACHABLE : SourceFailover.SiteA.FAILED;
                        if (primaryOnB) {
                            return finished(
                                    FailoverStep.PRIMARY_ON_B,
                                    "already primary on " + nameB + "; DemoteVolume on " + nameA + " answered "
                                            + Steps.describe(e));
                        }
                        if (!unreachable) {
                            return finished(
                                    FailoverStep.FAILED,
                                    "DemoteVolume on " + nameA + " answered " + Steps.describe(e)
                                            + "; nothing promoted on " + nameB);
                        }
                        String why = nameA + " unreachable (" + Steps.describe(e) + ")";
                        return forceIfUnreachable
                                ? promoteOnB(true)
                                : finished(
                                        FailoverStep.REFUSED,
                                        why + " and force not allowed: nothing promoted on " + nameB
                                                + " (promoting with force while " + nameA
                                                + " may still be primary can split the brain)");
                    });
        }

        /**
         * PromoteVolume on B. Unforced (after A's own demote answered OK), a 9 or 10 is B's storage still waiting for
         * the demotion to arrive: sent again, without force, within the demotion wait. Forced (A unreachable), the
         * first answer stands.
         */
        private CompletableFuture<SourceFailover> promoteOnB(boolean force) {
            step(FailoverStep.PROMOTING_ON_B, force ? "with force" : "");
            Steps.Wait window = new Steps.Wait(
                    nameA + "'s demotion to reach " + nameB,
                    e -> !force && (e.code() == StatusCode.FAILED_PRECONDITION || e.code() == StatusCode.ABORTED),
                    demotionWait,
                    policyB,
                    detail -> step(FailoverStep.PROMOTING_ON_B, detail));
            String rerun = siteAOutcome == SourceFailover.SiteA.DEMOTED
                    ? " (" + nameA + " is demoted: re-run the failover once the cause is fixed)"
                    : "";
            return Steps.callUntil(
                    this::record,
                    force ? "B PromoteVolume(force)" : "B PromoteVolume",
                    () -> siteB.source(destination.source())
                            .promote()
                            .force(force)
                            .retryPolicy(policyB)
                            .callAsync(),
                    window,
                    ok -> {
                        forced = force;
                        primaryOnB = true;
                        return verifyOnB();
                    },
                    e -> {
                        promoteUnanswered = unanswered(e);
                        return finished(
                                FailoverStep.FAILED,
                                "PromoteVolume on " + nameB + " answered " + Steps.describe(e)
                                        + (promoteUnanswered ? ": it may or may not have been promoted" : "")
                                        + rerun);
                    },
                    (e, tries) -> finished(
                            FailoverStep.FAILED,
                            nameB + " still refused the unforced PromoteVolume after waiting "
                                    + Steps.duration(demotionWait) + " for " + nameA + "'s demotion to reach it ("
                                    + tries + " tries, never forced: " + nameA + " answers): "
                                    + Steps.answeredWithRecovery(e) + rerun));
        }

        /**
         * GetVolumeReplicationInfo on B after the promote: 5 NOT_FOUND ("details not available at the moment"), 14
         * UNAVAILABLE or a deadline mean B has no completed sync to report yet; polled within the call budget (no
         * poll starts after it). No completed sync within it fails the source, though B is primary.
         */
        private CompletableFuture<SourceFailover> verifyOnB() {
            step(FailoverStep.VERIFYING_ON_B, "");
            Steps.Wait firstSync = new Steps.Wait(
                    nameB + "'s first completed sync",
                    e -> e.code() == StatusCode.NOT_FOUND || unanswered(e),
                    callBudget,
                    policyB,
                    detail -> step(FailoverStep.VERIFYING_ON_B, detail));
            return Steps.callUntil(
                    this::record,
                    "B GetVolumeReplicationInfo",
                    // Each poll gets the whole call budget: a poll cut short would report the cut, not B's answer.
                    this::infoOnB,
                    firstSync,
                    known -> {
                        info = known;
                        return finished(FailoverStep.PRIMARY_ON_B, forced ? "promoted with force" : "");
                    },
                    e -> finished(
                            FailoverStep.FAILED,
                            "promoted, but GetVolumeReplicationInfo on " + nameB + " answered " + Steps.describe(e)),
                    (e, tries) -> finished(
                            FailoverStep.FAILED,
                            "promoted, but " + nameB + " reported no completed sync"
                                    + " within the budget of " + Steps.duration(callBudget) + ": "
                                    + Steps.answeredWithRecovery(e) + " (" + tries
                                    + " tries; " + nameB + " is primary: ask it again"
                                    + " later, GetVolumeReplicationInfo or volrep info, or run the failover again)"));
        }

        private CompletableFuture<ReplicationInfo> infoOnB() {
            return siteB.source(destination.source())
                    .infoCall()
                    .retryPolicy(policyB)
                    .callAsync();
        }

        private synchronized void record(String call) {
            calls.add(call);
        }

        private void step(FailoverStep step, String detail) {
            Failover.this.notify(source, destination, step, detail);
        }

        /** Fails the source before anything changed: nothing was sent to A but questions. */
        private CompletableFuture<SourceFailover> unchanged(String why) {
            return finished(FailoverStep.FAILED, why + "; nothing changed on either site");
        }

        private CompletableFuture<SourceFailover> finished(FailoverStep step, String why) {
            return CompletableFuture.completedFuture(finish(step, why));
        }

        private synchronized SourceFailover finish(FailoverStep step, String why) {
            step(step, why);
            Condition.Status health = info == null ? Condition.Status.UNKNOWN : replicating.apply(info);
            return new SourceFailover(
                    source,
                    Optional.ofNullable(destination),
                    step,
                    siteAOutcome,
                    state(step),
                    forced,
                    Optional.ofNullable(info),
                    health,
                    calls,
                    step == FailoverStep.PRIMARY_ON_B ? Optional.empty() : Optional.of(why));
        }

        /** Where the source stands, from the answers: see {@link SourceFailover.State}. */
        private SourceFailover.State state(FailoverStep step) {
            if (step == FailoverStep.PRIMARY_ON_B) {
                return SourceFailover.State.PRIMARY_ON_B;
            }
            if (primaryOnB) {
                return SourceFailover.State.PROMOTED_NOT_VERIFIED;
            }
            if (promoteUnanswered) {
                return SourceFailover.State.PROMOTE_UNANSWERED;
            }
            return switch (siteAOutcome) {
                case DEMOTED -> SourceFailover.State.NO_PRIMARY;
                case UNREACHABLE -> SourceFailover.State.DEMOTE_UNANSWERED;
                case FAILED, NOT_TRIED -> SourceFailover.State.UNCHANGED;
            };
        }
    }

    /** 14 UNAVAILABLE or 4 DEADLINE_EXCEEDED after the retries: the site did not answer; the call may have acted. */
    private static boolean unanswered(ReplicationException e) {
        return e.code() == StatusCode.UNAVAILABLE || e.code() == StatusCode.DEADLINE_EXCEEDED;
    }

    /** Builds a {@link Failover}. */
    public static final class Builder {
        private ReplicationClient siteA;
        private ReplicationClient siteB;
        private final LinkedHashSet<ReplicationSource> sources = new LinkedHashSet<>();
        private DestinationResolver resolver;
        private boolean assumeSameIds;
        private boolean forceIfUnreachable;
        private int parallelism = 4;
        private Duration callBudget = Duration.ofSeconds(30);
        private Duration demotionWait = DEFAULT_DEMOTION_WAIT;
        private Function<ReplicationInfo, Condition.Status> replicating = ReconcileOptions.HEALTH;
        private Consumer<FailoverProgress> listener;
        private String nameA = "site A";
        private String nameB = "site B";

        private Builder() {}

        /** Site A's client: the site the sources are primary on now. */
        public Builder from(ReplicationClient siteA) {
            this.siteA = Objects.requireNonNull(siteA, "siteA");
            return this;
        }

        /** Site B's client: the site to make primary. */
        public Builder to(ReplicationClient siteB) {
            this.siteB = Objects.requireNonNull(siteB, "siteB");
            return this;
        }

        /** Adds a source on site A (a volume or a volume group); duplicates are failed over once. */
        public Builder source(ReplicationSource source) {
            sources.add(Objects.requireNonNull(source, "source"));
            return this;
        }

        /** Adds every source of {@code sources}. */
        public Builder sources(Iterable<? extends ReplicationSource> sources) {
            sources.forEach(this::source);
            return this;
        }

        /**
         * How destinations are found, the caller's way ({@link DestinationResolver#ids}, {@link DestinationResolver#of}
         * or your own). Default: site A is asked (GetReplicationDestinationInfo, 14 UNAVAILABLE retried within the
         * call budget); a source whose destination A cannot give fails before anything changes, except that a site
         * A that answers 12 UNIMPLEMENTED and does not advertise the RPC means the same ids.
         */
        public Builder resolver(DestinationResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * Whether each source's destination on site B has the source's own id and kind (default false), for sites
         * that share ids: site A is not asked. With a {@link #resolver}, for the sources it fails on. The report
         * marks such destinations {@link Destination.Origin#SAME_IDS}.
         *
         * <pre>{@code
         * Failover.builder().from(a).to(b).source(ReplicationSource.volume("vol-0")).assumeSameIds(true).build();
         * }</pre>
         */
        public Builder assumeSameIds(boolean assume) {
            this.assumeSameIds = assume;
            return this;
        }

        /**
         * How long B's unforced PromoteVolume is sent again, with back-off, while B answers 9 FAILED_PRECONDITION or
         * 10 ABORTED after A's own demote answered OK (default {@link #DEFAULT_DEMOTION_WAIT}): the storage refuses an
         * unforced promote until the peer's demotion has arrived. Never with force: forcing in that window loses what
         * the demotion carries and can leave two primaries. When B still refuses at the end, the source fails (site A
         * stays demoted; a re-run continues). A call that starts within the wait runs to its own end (its call budget).
         *
         * <pre>{@code
         * Failover.builder().from(a).to(b).source(ReplicationSource.volume("vol-0")).assumeSameIds(true)
         *         .demotionWait(Duration.ofMinutes(5))                      // slow storage
         *         .build().run();
         * }</pre>
         */
        public Builder demotionWait(Duration wait) {
            this.demotionWait = Arguments.requirePositive("demotionWait", wait);
            return this;
        }

        /** Whether site B may be promoted with {@code force} when site A cannot be reached (default false). */
        public Builder forceIfUnreachable(boolean allow) {
            this.forceIfUnreachable = allow;
            return this;
        }

        /** How many sources are in progress at once (default 4, at least 1). */
        public Builder parallelism(int parallelism) {
            this.parallelism = Arguments.requireAtLeast("parallelism", parallelism, 1);
            return this;
        }

        /**
         * The budget of each call, retries included (default 30 s): a site that does not answer within it is
         * taken as unreachable. It also bounds the verification: B's first completed sync must be reported within it.
         */
        public Builder callBudget(Duration budget) {
            this.callBudget = Arguments.requirePositive("callBudget", budget);
            return this;
        }

        /** Reads B's replication health from its info answer (default: unknown). */
        public Builder replicating(Function<ReplicationInfo, Condition.Status> replicating) {
            this.replicating = Objects.requireNonNull(replicating, "replicating");
            return this;
        }

        /**
         * How the report's texts and the progress details name the two sites (default {@code "site A"} and {@code
         * "site B"}): a failover back from the lab's site-b to its site-a reads right when its texts say so.
         *
         * <pre>{@code
         * Failover.builder().from(siteB).to(siteA).siteNames("site-b", "site-a")...    // failing back
         * // why not: site-a still refused the unforced PromoteVolume after waiting 2m for site-b's demotion ...
         * }</pre>
         */
        public Builder siteNames(String from, String to) {
            this.nameA = siteName("from", from);
            this.nameB = siteName("to", to);
            return this;
        }

        private static String siteName(String which, String name) {
            if (Objects.requireNonNull(name, which).isBlank()) {
                throw new IllegalArgumentException(which + " must not be blank");
            }
            return SafeText.escape(name);
        }

        /** Receives every step of every source, from the threads the calls complete on; must not block. */
        public Builder listener(Consumer<FailoverProgress> listener) {
            this.listener = listener;
            return this;
        }

        /** The failover, ready to run (and to run again). */
        public Failover build() {
            return new Failover(this);
        }
    }
}

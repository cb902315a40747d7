package io.volrep.testkit;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import org.slf4j.LoggerFactory;

/**
 * One run's connections to the target (and its peer site) and the scheduler that runs its checks, each holding its
 * fixtures, several at a time: starts in-process targets, opens the channels, runs checks and the lifecycle
 * exploration, and keeps what the report needs (calls, waits).
 */
final class ConformanceSession implements AutoCloseable {
    private final ConformanceConfig config;
    private final Endpoints.OpenChannel open;
    /** The healer's own channel when {@link ConformanceConfig#healerEndpoint()} is set; else null. */
    private final Endpoints.OpenChannel openHealer;
    /** The peer site's channel when a peer is configured; else null. */
    private final Endpoints.OpenChannel openPeer;

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Every call the run sent to the target. */
    private final LongAdder calls = new LongAdder();
    /** Each source's replica on the peer site, as the target's destination named it. */
    private final PeerReplicas peerReplicas = new PeerReplicas();
    /** How long each check (by name) ran, and polled transient answers. */
    private final CheckTimes times = new CheckTimes();
    /** The checks submitted so far (by id) and their runs' failures (null: passed), as the bodies threw them. */
    private final Map<String, CompletableFuture<Throwable>> submitted = new ConcurrentHashMap<>();

    private final CheckScheduler scheduler;
    /** The fixtures a check left broken (an operation left pending, a failed restore), and which check did. */
    private final Map<ReplicationSource, String> poison = new ConcurrentHashMap<>();

    private volatile Exploration exploration;

    /**
     * Fixtures a check left enabled and primary for the next check on them, by the id of that check
     * ({@link ConformanceContext#restore(boolean)}).
     */
    private final Map<ReplicationSource, String> carried = new ConcurrentHashMap<>();

    private ConformanceSession(ConformanceConfig config) {
        this.config = config;
        String endpoint;
        String peer = config.peerEndpoint().orElse(null);
        if (config.endpoint().isPresent()) {
            endpoint = config.endpoint().get();
        } else if (config.driver().isPresent()) {
            endpoint = serve(config.driver().get(), true);
            if (config.peerDriver().isPresent()) {
                peer = serve(config.peerDriver().get(), false);
            }
        } else {
            String name = "volrep-conformance-" + InProcessServerBuilder.generateName();
            // ServerInterceptors.intercept calls the last one first; the config's first is outermost.
            List<ServerInterceptor> outermostLast = new ArrayList<>(config.interceptors());
            Collections.reverse(outermostLast);
            try {
                Server server = InProcessServerBuilder.forName(name)
                        .addService(
                                ServerInterceptors.intercept(config.service().get(), outermostLast))
                        .build()
                        .start();
                resources.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            endpoint = "inprocess:" + name;
        }
        this.open = Endpoints.open(endpoint);
        this.openHealer = config.healerEndpoint().map(Endpoints::open).orElse(null);
        this.openPeer = peer == null ? null : Endpoints.open(peer);
        this.scheduler = new CheckScheduler(config);
    }

    /** Serves {@code driver} in-process through the SPI runtime (with the healer and interceptors for the target). */
    private String serve(ReplicationDriver driver, boolean target) {
        String name = "volrep-conformance-" + InProcessServerBuilder.generateName();
        ReplicationServer.Builder builder = ReplicationServer.builder()
                .driver(driver)
                .dialect(config.dialect())
                .listen("inprocess:" + name)
                .gracePeriod(Duration.ofMillis(200));
        if (target) {
            config.healerDriver().ifPresent(builder::healer);
            config.volumeGroupDriver().ifPresent(builder::volumeGroups);
            // The SPI runs the last interceptor added first; the config's first is outermost.
            List<ServerInterceptor> outermostLast = new ArrayList<>(config.interceptors());
            Collections.reverse(outermostLast);
            outermostLast.forEach(builder::interceptor);
        }
        ReplicationServer server = builder.build().start();
        resources.add(server);
        return "inprocess:" + name;
    }

    static ConformanceSession open(ConformanceConfig config) {
        return new ConformanceSession(config);
    }

    ConformanceConfig config() {
        return config;
    }

    ManagedChannel channel() {
        return open.channel();
    }

    /**
     * Queues {@code checks} (once each): every check that makes calls runs on the scheduler with its fixtures; the
     * lifecycle exploration starts with the first check that reports on it.
     */
    void submit(List<Check> checks) {
        for (Check check : checks) {
            if (config.skipped(check)
                    || submitted.containsKey(check.id())
                    || notApplicable(check).isPresent()) {
                continue;
            }
            if (check.needs().reports()) {
                if (Bystanders.CHECKS.contains(check.id())) {
                    bystanders().start();
                } else {
                    exploration().start();
                }
                continue;
            }
            CompletableFuture<Throwable> result = new CompletableFuture<>();
            submitted.put(check.id(), result);
            scheduler.submit(check.needs(), weight(check), lease -> result.complete(runHere(check, lease)));
        }
    }

    /** About how many calls a check makes: the scheduler starts heavy ones first. */
    private static int weight(Check check) {
        return check.needs().every() ? 1 : check.needs().calls();
    }

    /**
     * Runs one check: on the scheduler's result when it was submitted, here otherwise; throws its failure (made safe
     * to print, with the check's id and hint), or its abort. A failure that is the consequence of another check's
     * failure is reported NOT RUN because of that check.
     */
    void run(Check check) throws Throwable {
        Optional<String> notApplicable = notApplicable(check);
        if (notApplicable.isPresent()) {
            throw new TestAbortedException(ConformanceContext.NOT_APPLICABLE_PREFIX + notApplicable.get());
        }
        if (!check.needs().reports()) {
            submit(List.of(check));
        }
        CompletableFuture<Throwable> result = submitted.get(check.id());
        Throwable raw;
        if (result == null) {
            raw = runHere(check, CheckScheduler.Lease.NONE);
            if (!check.needs().reports()) {
                // Kept, so that a later check's failure can be resolved against this one.
                submitted.putIfAbsent(check.id(), CompletableFuture.completedFuture(raw));
            }
        } else {
            raw = result.get();
        }
        Throwable failure = resolve(check, raw);
        if (failure != null) {
            throw named(check, failure);
        }
    }

    /**
     * The failure as reported: a failure that other checks' failures explain (a {@link ConformanceContext.Consequence},
     * or the same check's failure for a volume, without force, or on an earlier RPC: {@link #counterparts}) becomes
     * NOT RUN because of the failed check at the root of its causes; else a plain failure. Aborts stay as they are.
     */
    private Throwable resolve(Check check, Throwable failure) throws Exception {
        if (!(failure instanceof AssertionError) || failure instanceof TestAbortedException) {
            return failure;
        }
        Optional<String> root = explained(blame(check.id(), failure), new HashSet<>());
        if (root.isPresent() && !root.get().equals(check.id())) {
            return new TestAbortedException(ConformanceContext.NOT_RUN_PREFIX + ConformanceContext.BECAUSE_OF
                    + root.get() + ", which failed: " + failure.getMessage());
        }
        if (!(failure instanceof ConformanceContext.Consequence)) {
            return failure;
        }
        AssertionFailedError plain = new AssertionFailedError(failure.getMessage());
        plain.setStackTrace(failure.getStackTrace());
        for (Throwable s : failure.getSuppressed()) {
            plain.addSuppressed(s);
        }
        return plain;
    }

    /**
     * What a check's failure blames: the checks whose failure explains it (its own causes, then its counterparts), those
     * whose failure on its own would (a guess), and whether it is itself a guess that names nothing else.
     */
    private record Blame(String id, List<String> causes, List<String> weak, boolean speculative) {}

    private Blame blame(String id, Throwable failure) {
        List<String> causes = new ArrayList<>();
        List<String> weak = new ArrayList<>();
        if (failure instanceof ConformanceContext.Consequence c) {
            causes.addAll(c.causes());
            weak.addAll(c.weak());
        }
        counterparts(id).stream().filter(c -> !causes.contains(c)).forEach(causes::add);
        if (config.hasPeer() && !id.startsWith("two-sites/")) {
            // Site A's answers also follow what the peer site does: a defect there, the two-site check names.
            String twoSites = "two-sites/" + (id.contains("/group/") ? "group" : "volume") + "/round-trip";
            if (!weak.contains(twoSites)) {
                weak.add(twoSites);
            }
        } else if (id.startsWith("two-sites/") && !id.endsWith("/round-trip")) {
            causes.add("two-sites/" + (id.contains("/group/") ? "group" : "volume") + "/round-trip");
        }
        return new Blame(id, causes, weak, false);
    }

    /** How the check {@code id} failed in this run; empty when it did not fail (or is no check of the run). */
    private Optional<Blame> failureOf(String id) throws Exception {
        if (!isCheckOfTheRun(id)) {
            return Optional.empty();
        }
        if (Bystanders.CHECKS.contains(id)) {
            return bystanders().verdict(id).map(c -> blame(id, c));
        }
        Optional<Kind> kind = Exploration.kindOf(id);
        if (kind.isPresent() && !submitted.containsKey(id)) {
            if (!exploration().explores(kind.get())) {
                return Optional.empty();
            }
            Exploration.Verdict v = exploration().verdict(kind.get(), id);
            if (v.outcome() != CheckOutcome.FAILED) {
                return Optional.empty();
            }
            Blame b = blame(id, new ConformanceContext.Consequence(v.causes(), v.weak(), v.message()));
            return Optional.of(new Blame(id, b.causes(), b.weak(), v.speculative()));
        }
        CompletableFuture<Throwable> result = submitted.get(id);
        if (result == null) {
            return Optional.empty();
        }
        Throwable t = result.get();
        return t instanceof AssertionError && !(t instanceof TestAbortedException)
                ? Optional.of(blame(id, t))
                : Optional.empty();
    }

    /**
     * The failed check that explains {@code b}: the root of the first of its causes that failed, else the first of
     * its weak causes that failed on its own; empty when none does.
     */
    private Optional<String> explained(Blame b, Set<String> visiting) throws Exception {
        visiting.add(b.id());
        for (String cause : b.causes()) {
            Optional<String> root = root(cause, visiting, false);
            if (root.isPresent()) {
                return root;
            }
        }
        for (String cause : b.weak()) {
            Optional<String> own = root(cause, new HashSet<>(), true);
            if (own.isPresent() && own.get().equals(cause)) {
                return own;
            }
        }
        return Optional.empty();
    }

    /**
     * The failed check at the root of the check {@code id}'s failure: the check itself when nothing explains it, the
     * root of what does; empty when it did not fail. Back at a check already followed, that check is the root (a cycle
     * of causes blames where it was entered). With {@code strongOnly}, weak causes are not followed and a failure that
     * is itself a guess counts as none.
     */
    private Optional<String> root(String id, Set<String> visiting, boolean strongOnly) throws Exception {
        Optional<Blame> failure = failureOf(id);
        if (failure.isEmpty() || (strongOnly && failure.get().speculative())) {
            return Optional.empty();
        }
        if (!visiting.add(id) || visiting.size() > 24) {
            return Optional.of(id);
        }
        Blame b = failure.get();
        for (String cause : b.causes()) {
            Optional<String> root = root(cause, visiting, strongOnly);
            if (root.isPresent()) {
                return root;
            }
        }
        if (!strongOnly) {
            for (String cause : b.weak()) {
                Optional<String> own = root(cause, new HashSet<>(), true);
                if (own.isPresent() && own.get().equals(cause)) {
                    return own;
                }
            }
        }
        return Optional.of(id);
    }

    /**
     * The checks that judge the same rule as the check {@code id} on an easier path, whose failure names the same
     * defect: the volume's for a group's check, the check without force for one with force, the same condition of the
     * RPCs before it for a condition that is not a state (wrong secrets on every RPC is one defect). Only checks of this
     * run.
     */
    List<String> counterparts(String id) {
        List<String> c = new ArrayList<>();
        if (id.endsWith("/force")) {
            c.add(id.substring(0, id.length() - "/force".length()));
        }
        if (id.contains("/group/")) {
            c.add(id.replace("/group/", "/volume/"));
        }
        if (id.endsWith("/auth-missing")) {
            // A plugin that takes no secrets for valid ones usually checks none: the wrong secrets' check names it.
            c.add(id.substring(0, id.length() - "missing".length()) + "wrong");
        }
        // A check made per fixture: the same check of the fixtures before it (the volumes' for a group's).
        Matcher perFixture = PER_FIXTURE.matcher(id);
        if (perFixture.matches()) {
            String check = perFixture.group(1);
            boolean group = perFixture.group(2).equals("group");
            for (String v : config.volumes()) {
                if (!group && v.equals(perFixture.group(3))) {
                    break;
                }
                c.add(check + "/volume/" + v);
            }
            if (group) {
                for (String g : config.volumeGroups()) {
                    if (g.equals(perFixture.group(3))) {
                        break;
                    }
                    c.add(check + "/group/" + g);
                }
            }
        }
        String[] parts = id.split("/", 3);
        Optional<Rpc> rpc = Rpc.fromMethodName(parts[0]);
        if (parts.length == 3
                && rpc.isPresent()
                && ControllerChecks.RPCS.contains(rpc.get())
                && !STATE_CONDITION.matcher(parts[2]).matches()) {
            for (Rpc earlier : ControllerChecks.RPCS.subList(0, ControllerChecks.RPCS.indexOf(rpc.get()))) {
                c.add(earlier.methodName() + "/" + parts[1] + "/" + parts[2]);
                if (parts[1].equals("group")) {
                    c.add(earlier.methodName() + "/volume/" + parts[2]);
                }
            }
        }
        return c.stream().filter(this::isCheckOfTheRun).distinct().toList();
    }

    /** The ids of the checks made per fixture: the check, the kind, the fixture. */
    private static final Pattern PER_FIXTURE = Pattern.compile("(lifecycle|fixtures-restored)/(volume|group)/(.+)");

    /** The conditions of the walk: a state, with force or not; and the comparisons over time. */
    private static final Pattern STATE_CONDITION =
            Pattern.compile("(disabled|primary|secondary)(/force)?|consistent|last-sync-time-over-time");

    private volatile Set<String> checkIds;

    private boolean isCheckOfTheRun(String id) {
        Set<String> ids = checkIds;
        if (ids == null) {
            ids = ConformanceChecks.all().stream()
                    .flatMap(g -> g.checks(config).stream())
                    .filter(c -> !config.skipped(c))
                    .map(Check::id)
                    .collect(Collectors.toUnmodifiableSet());
            checkIds = ids;
        }
        return ids.contains(id);
    }

    /** Runs {@code check} in this thread holding {@code lease}, then restores what it enabled; returns its failure. */
    private Throwable runHere(Check check, CheckScheduler.Lease lease) {
        ConformanceContext ctx = new ConformanceContext(this, lease, check);
        long start = System.nanoTime();
        Throwable failure = null;
        boolean takesAny = takesAnyFixtures(check.needs());
        try {
            if (!takesAny) {
                ctx.disableCarried();
            }
            check.body().run(ctx);
        } catch (Throwable t) {
            failure = t;
        }
        List<String> problems;
        try {
            problems = ctx.restore(takesAny && failure == null);
        } catch (Throwable t) {
            problems = List.of("could not restore: " + t);
        }
        if (!problems.isEmpty()) {
            // What this check could not restore is broken for the checks after it: their failures are its.
            lease.volumes().forEach(v -> poisoned(ReplicationSource.volume(v), check.id()));
            lease.groups().forEach(g -> poisoned(ReplicationSource.volumeGroup(g), check.id()));
        }
        if (failure instanceof AssertionError
                && !(failure instanceof TestAbortedException)
                && !ctx.inherited().isEmpty()) {
            // A fixture this check holds was left broken by an earlier check: its failure may be that check's.
            List<String> causes = new ArrayList<>(ctx.inherited());
            if (failure instanceof ConformanceContext.Consequence earlier) {
                causes.addAll(earlier.causes());
            }
            ConformanceContext.Consequence c = new ConformanceContext.Consequence(causes, failure.getMessage());
            c.setStackTrace(failure.getStackTrace());
            for (Throwable s : failure.getSuppressed()) {
                c.addSuppressed(s);
            }
            failure = c;
        }
        // A check reporting the exploration only waits here for the tour: its time is its edges' (Exploration).
        times.ran(check.name(), check.needs().reports() ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - start));
        times.waited(check.name(), ctx.waited());
        if (!problems.isEmpty()) {
            AssertionFailedError restoreFailure = new AssertionFailedError(String.join("; ", problems));
            if (failure == null || failure instanceof TestAbortedException) {
                if (failure != null) {
                    restoreFailure.addSuppressed(failure);
                }
                failure = restoreFailure;
            } else {
                failure.addSuppressed(restoreFailure);
            }
        }
        return failure;
    }

    /** {@code failure} made safe to print ({@link #safe(Throwable, int)}), a failure carrying the check's id and hint. */
    private Throwable named(Check check, Throwable failure) {
        Throwable safe = safe(failure, 0);
        if (safe instanceof AssertionError && !(safe instanceof TestAbortedException)) {
            // The id and hint travel with the failure, so every JUnit XML report (Surefire's too) carries them.
            AssertionFailedError named = new AssertionFailedError(
                    safe.getMessage()
                            + ConformanceListener.CHECK_LINE
                            + check.id()
                            + (check.hint().isEmpty() ? "" : ": " + check.hint()),
                    safe);
            named.setStackTrace(new StackTraceElement[0]);
            return named;
        }
        return safe;
    }

    private volatile ReplicationScope scope;

    /** Whether the run judges replication.Controller: what Identity advertises, or what the plugin serves. */
    ReplicationScope scope() {
        ReplicationScope s = scope;
        if (s == null) {
            synchronized (this) {
                if (scope == null) {
                    scope = ReplicationScope.of(this);
                }
                s = scope;
            }
        }
        return s;
    }

    /** Why {@code check} does not apply to this plugin (a service its Identity does not advertise); empty when it does. */
    Optional<String> notApplicable(Check check) {
        return ReplicationScope.judges(check) && !scope().replication() ? Optional.of(scope().why()) : Optional.empty();
    }

    /** Notes that the check {@code culprit} left {@code fixture} broken (the first culprit stays). */
    void poisoned(ReplicationSource fixture, String culprit) {
        poison.putIfAbsent(fixture, culprit);
    }

    /** The checks that left a fixture of {@code lease} broken so far. */
    List<String> poison(CheckScheduler.Lease lease) {
        List<String> culprits = new ArrayList<>();
        lease.volumes().forEach(v -> {
            String c = poison.get(ReplicationSource.volume(v));
            if (c != null && !culprits.contains(c)) {
                culprits.add(c);
            }
        });
        lease.groups().forEach(g -> {
            String c = poison.get(ReplicationSource.volumeGroup(g));
            if (c != null && !culprits.contains(c)) {
                culprits.add(c);
            }
        });
        return List.copyOf(culprits);
    }

    /** Records that the check named {@code name} waited {@code d} for transient answers (the exploration's share). */
    void waited(String name, Duration d) {
        times.waited(name, d);
    }

    /** Records that the check named {@code name} ran {@code d} (the exploration's share: its edges' calls). */
    void ran(String name, Duration d) {
        times.ran(name, d);
    }

    /** {@code text} as the kit may write it anywhere: configured secret values masked, control characters escaped. */
    String safe(String text) {
        return text == null ? null : SafeText.escape(config.secrets().scrub(text));
    }

    /**
     * A copy of a check's failure whose messages (its own, its causes' and its suppressed exceptions') are
     * {@link #safe(String)}: they quote what the plugin answered, and whatever runs the suite (the kit's runner, a
     * vendor's Surefire) prints them and writes them into reports. Same kind (failed, aborted, error), same stack.
     */
    private Throwable safe(Throwable t, int depth) {
        String message = safe(t.getMessage());
        Throwable copy = t instanceof TestAbortedException
                ? new TestAbortedException(message)
                : t instanceof AssertionError
                        ? new AssertionFailedError(message)
                        : new IllegalStateException(t.getClass().getName() + (message == null ? "" : ": " + message));
        copy.setStackTrace(t.getStackTrace());
        if (depth < 8) {
            if (t.getCause() != null && t.getCause() != t) {
                copy.initCause(safe(t.getCause(), depth + 1));
            }
            for (Throwable suppressed : t.getSuppressed()) {
                copy.addSuppressed(safe(suppressed, depth + 1));
            }
        }
        return copy;
    }

    /** How long each check (by name) ran, and polled transient answers. */
    CheckTimes times() {
        return times;
    }

    /** What the lifecycle exploration covered, for the statement; empty when it did not run. */
    String explored() {
        Exploration e = exploration;
        return e == null ? "" : e.summary();
    }

    private volatile boolean pluginAnswered;

    /** True once the target answered anything but a transport failure: its 14 UNAVAILABLE is then transient. */
    boolean pluginAnswered() {
        return pluginAnswered;
    }

    void pluginAnswered(boolean answered) {
        if (answered && !pluginAnswered) {
            pluginAnswered = true;
        }
    }

    private volatile Bystanders bystanders;

    /** The run's isolation engine, created on first use. */
    Bystanders bystanders() {
        Bystanders b = bystanders;
        if (b == null) {
            synchronized (this) {
                if (bystanders == null) {
                    bystanders = new Bystanders(this);
                }
                b = bystanders;
            }
        }
        return b;
    }

    /** The run's lifecycle exploration, created on first use. */
    Exploration exploration() {
        Exploration e = exploration;
        if (e == null) {
            synchronized (this) {
                if (exploration == null) {
                    exploration = new Exploration(this);
                }
                e = exploration;
            }
        }
        return e;
    }

    /**
     * True for a check that takes any fixtures it is leased, whenever they are free: only such a check carries a
     * fixture on to the next one, or takes one carried to it (checks of given fixtures, of every fixture, first or
     * last, meet them disabled).
     */
    private static boolean takesAnyFixtures(Needs needs) {
        return !needs.every() && !needs.reports() && needs.fixtures().isEmpty() && needs.order() == Needs.Order.ANY;
    }

    /** Takes the fixtures of {@code lease} that a check carried on, by the id of that check. */
    Map<ReplicationSource, String> claimCarried(CheckScheduler.Lease lease) {
        Map<ReplicationSource, String> mine = new LinkedHashMap<>();
        for (ReplicationSource f : List.copyOf(carried.keySet())) {
            if (lease.holds(f)) {
                String by = carried.remove(f);
                if (by != null) {
                    mine.put(f, by);
                }
            }
        }
        return mine;
    }

    /** Notes that check {@code by} left {@code fixture} enabled and primary for the next check on it. */
    void carry(ReplicationSource fixture, String by) {
        carried.put(fixture, by);
    }

    /** Runs {@code work} on the scheduler holding {@code needs}. */
    <T> CompletableFuture<T> schedule(Needs needs, int weight, Function<CheckScheduler.Lease, T> work) {
        return scheduler.submit(needs, weight, work);
    }

    /**
     * A context holding {@code lease}, for work that is not a check (the exploration), its fixtures disabled as every
     * such work expects them.
     */
    ConformanceContext context(CheckScheduler.Lease lease) {
        ConformanceContext ctx = new ConformanceContext(this, lease, null);
        ctx.disableCarried();
        return ctx;
    }

    LongAdder callCounter() {
        return calls;
    }

    Channel healerChannel() {
        return openHealer == null ? open.channel() : openHealer.channel();
    }

    /** The peer site's channel, or null without a peer. */
    Channel peerChannel() {
        return openPeer == null ? null : openPeer.channel();
    }

    private final EchoWatch echoes = new EchoWatch();

    /** Every answer of the run watched for the secrets of its request. */
    EchoWatch echoes() {
        return echoes;
    }

    /** The fixtures' replicas on the peer site, found once per run. */
    PeerReplicas peerReplicas() {
        return peerReplicas;
    }

    /** How many calls the run has sent so far. */
    long calls() {
        return calls.sum();
    }

    @Override
    public void close() {
        if (!carried.isEmpty()) {
            // The run leaves every fixture as it found it: replication disabled.
            List<String> volumes = new ArrayList<>();
            List<String> groups = new ArrayList<>();
            carried.keySet().forEach(f -> (f.kind() == Kind.VOLUME_GROUP ? groups : volumes).add(f.id()));
            try {
                new ConformanceContext(this, new CheckScheduler.Lease(volumes, groups), null).disableCarried();
            } catch (AssertionError e) {
                LoggerFactory.getLogger(ConformanceSession.class)
                        .warn(
                                "the run could not leave every fixture disabled: {}",
                                safe(e, 0).getMessage());
            }
        }
        scheduler.close();
        open.close();
        if (openPeer != null) {
            openPeer.close();
        }
        if (openHealer != null) {
            openHealer.close();
        }
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                LoggerFactory.getLogger(ConformanceSession.class).warn("closing the conformance target", e);
            }
        }
    }
}

package io.volrep.testkit;

import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a conformance run's work at most {@link ConformanceConfig#parallelism()} at a time, each task holding the
 * fixtures it needs ({@link Needs}) and no other task holding them meanwhile. A task starts only when its fixtures
 * are free, so workers never wait for fixtures; heavier tasks and tasks on the scarcer kind start first (the run
 * lasts as long as its busiest fixture); {@link Needs.Order#FIRST} tasks all end before any other starts, and
 * {@link Needs.Order#LAST} tasks start after every other ended.
 */
final class CheckScheduler implements AutoCloseable {

    /** The fixtures a running task holds: {@link ConformanceContext#volume()} answers the first volume. */
    record Lease(List<String> volumes, List<String> groups) {
        static final Lease NONE = new Lease(List.of(), List.of());

        Lease {
            volumes = List.copyOf(volumes);
            groups = List.copyOf(groups);
        }

        /** True when this lease holds {@code fixture}. */
        boolean holds(ReplicationSource fixture) {
            return (fixture.kind() == Kind.VOLUME_GROUP ? groups : volumes).contains(fixture.id());
        }
    }

    private record Task(int sequence, Needs needs, int weight, Consumer<Lease> work) {}

    private final List<String> volumes;
    private final List<String> groups;
    private final Set<String> freeVolumes;
    private final Set<String> freeGroups;
    private final int parallelism;
    private final ExecutorService workers;
    private final List<Task> pending = new ArrayList<>();
    private final List<Task> running = new ArrayList<>();
    private final AtomicInteger sequence = new AtomicInteger();

    CheckScheduler(ConformanceConfig config) {
        this.volumes = config.volumes();
        this.groups = config.dialect().supports(Kind.VOLUME_GROUP) ? config.volumeGroups() : List.of();
        this.freeVolumes = new LinkedHashSet<>(volumes);
        this.freeGroups = new LinkedHashSet<>(groups);
        this.parallelism = config.parallelism();
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "volrep-conformance-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Queues {@code work}, run with a lease on the fixtures {@code needs} names; {@code weight} (about the calls it
     * makes) orders the queue. The future completes with what the work answers when it ended (or with what it threw).
     */
    <T> CompletableFuture<T> submit(Needs needs, int weight, Function<Lease, T> work) {
        CompletableFuture<T> done = new CompletableFuture<>();
        Task task = new Task(sequence.getAndIncrement(), needs, weight, lease -> {
            try {
                done.complete(work.apply(lease));
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        synchronized (this) {
            pending.add(task);
            pending.sort(Comparator.comparingInt((Task t) -> t.needs().order().ordinal())
                    .thenComparing(Comparator.comparingInt(this::priority).reversed())
                    .thenComparingInt(Task::sequence));
        }
        pump();
        return done;
    }

    /** Scarce fixtures first: a task needing a group weighs as much as all the volumes it could have run on. */
    private int priority(Task t) {
        int scarcity = t.needs().groups() > 0 && !groups.isEmpty() ? Math.max(1, volumes.size() / groups.size()) : 1;
        return t.weight() * scarcity;
    }

    private void pump() {
        List<Runnable> starts = new ArrayList<>();
        synchronized (this) {
            // running already holds the tasks started in this loop: counting starts too would stop at about half.
            for (var it = pending.iterator(); it.hasNext() && running.size() < parallelism; ) {
                Task t = it.next();
                if (!orderAllows(t)) {
                    continue;
                }
                Lease lease = tryAcquire(t.needs());
                if (lease == null) {
                    continue;
                }
                it.remove();
                running.add(t);
                starts.add(() -> run(t, lease));
            }
        }
        starts.forEach(workers::execute);
    }

    @SuppressWarnings("ReferenceEquality") // every other task than this one, equal or not
    private boolean orderAllows(Task t) {
        Needs.Order order = t.needs().order();
        for (List<Task> tasks : List.of(running, pending)) {
            for (Task other : tasks) {
                if (other != t && other.needs().order().ordinal() < order.ordinal()) {
                    return false;
                }
            }
        }
        return true;
    }

    private Lease tryAcquire(Needs needs) {
        if (needs.every()) {
            if (freeVolumes.size() < volumes.size() || freeGroups.size() < groups.size()) {
                return null;
            }
            freeVolumes.clear();
            freeGroups.clear();
            return new Lease(volumes, groups);
        }
        List<String> vols = new ArrayList<>();
        List<String> grps = new ArrayList<>();
        for (ReplicationSource fixture : needs.fixtures()) {
            String id = fixture.id();
            boolean group = fixture.kind() == Kind.VOLUME_GROUP;
            if (!(group ? groups : volumes).contains(id)) {
                continue; // not a fixture of this run: the check skips or fails on its own
            }
            if (!(group ? freeGroups : freeVolumes).contains(id)) {
                return null;
            }
            (group ? grps : vols).add(id);
        }
        int wantVolumes = Math.min(needs.volumes(), volumes.size());
        int wantGroups = Math.min(needs.groups(), groups.size());
        if (freeVolumes.size() - vols.size() < wantVolumes || freeGroups.size() - grps.size() < wantGroups) {
            return null;
        }
        int targetVolumes = vols.size() + wantVolumes;
        int targetGroups = grps.size() + wantGroups;
        for (String v : freeVolumes) {
            if (vols.size() >= targetVolumes) {
                break;
            }
            if (!vols.contains(v)) {
                vols.add(v);
            }
        }
        for (String g : freeGroups) {
            if (grps.size() >= targetGroups) {
                break;
            }
            if (!grps.contains(g)) {
                grps.add(g);
            }
        }
        vols.forEach(freeVolumes::remove);
        grps.forEach(freeGroups::remove);
        return new Lease(vols, grps);
    }

    private void run(Task t, Lease lease) {
        try {
            t.work().accept(lease);
        } finally {
            synchronized (this) {
                running.remove(t);
                // Give the fixtures back in configuration order, so the next lease takes them in that order too.
                List<String> backVolumes = new ArrayList<>(volumes);
                backVolumes.retainAll(union(freeVolumes, lease.volumes()));
                freeVolumes.clear();
                freeVolumes.addAll(backVolumes);
                List<String> backGroups = new ArrayList<>(groups);
                backGroups.retainAll(union(freeGroups, lease.groups()));
                freeGroups.clear();
                freeGroups.addAll(backGroups);
            }
            pump();
        }
    }

    private static Set<String> union(Set<String> a, List<String> b) {
        Set<String> u = new LinkedHashSet<>(a);
        u.addAll(b);
        return u;
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }
}

package io.volrep.ceph;

import io.volrep.ceph.internal.rados.Errno;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Two scripted sites (this one, {@code local}, and its peer, {@code peer}) standing in for librbd in the unit tests,
 * answering what real Ceph answered on the lab ({@link RbdFixtures} reads the outputs the {@code rbd} command printed
 * there). Each call of the driver's {@link RbdSite} is recorded as the {@code rbd} command it stands for ({@code local
 * info rbd/vol-0}, {@code peer snap ls --all rbd/vol-0}), and answered by the first rule whose command is the recorded
 * one or a prefix of it (followed by a space). A rule with several responses answers them in turn and then repeats
 * its last; a call without a rule fails with errno 95. The pool's metadata is a map of the fake's own (not recorded).
 *
 * <pre>{@code
 * FakeRbd rbd = new FakeRbd().on("local info rbd/vol-0", FakeRbd.ok(CephRbdDriverTest.PRIMARY));
 * CephRbdDriver driver = rbd.driver(Duration.ofSeconds(20));
 * }</pre>
 */
final class FakeRbd {
    /** One answer: the output, or an errno (and the text Ceph gave beside it), or no answer for that long. */
    record Response(int errno, String out, String text, int sleepSeconds) {
        /** Answers OK after {@code seconds}: a call that takes long, and then completes. */
        static Response slow(int seconds) {
            return new Response(-1, "", "", seconds);
        }
    }

    private record Rule(String command, List<Response> responses, AtomicInteger next) {}

    private final List<Rule> rules = Collections.synchronizedList(new ArrayList<>());
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    final Map<String, String> poolMetadata = new ConcurrentHashMap<>();
    final AtomicInteger pings = new AtomicInteger();
    volatile int pingSleepMillis;

    static Response ok(String out) {
        return new Response(0, out, "", 0);
    }

    static Response fail(int errno, String text) {
        return new Response(errno, "", text, 0);
    }

    static Response hang(int seconds) {
        return new Response(0, "", "", seconds);
    }

    FakeRbd on(String command, Response... responses) {
        rules.add(new Rule(command, List.of(responses), new AtomicInteger()));
        return this;
    }

    /** The calls so far, as the rbd commands they stand for. */
    List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** The driver over this fake: site A with site B as its peer. */
    CephRbdDriver driver(Duration timeout) {
        return CephRbdDriver.builder()
                .pool("rbd")
                .timeout(timeout)
                .sites(() -> site("local", "site site-a"), creds -> site("peer", "site " + creds.siteName()))
                .build();
    }

    RbdSite site(String side, String name) {
        return new Site(side, name);
    }

    /** Answers {@code command}: its output, or throws the scripted failure. */
    private String answer(String site, String command, boolean opening) {
        calls.add(command);
        Rule rule = null;
        synchronized (rules) {
            for (Rule r : rules) {
                if (command.equals(r.command()) || command.startsWith(r.command() + " ")) {
                    rule = r;
                    break;
                }
            }
        }
        if (rule == null) {
            throw new RbdException(site, command, 95, "fake rbd: no rule for: " + command);
        }
        Rule matched = rule;
        int n = matched.next()
                .getAndUpdate(i -> Math.min(i + 1, matched.responses().size() - 1));
        Response r = matched.responses().get(n);
        if (r.sleepSeconds() > 0) {
            try {
                Thread.sleep(r.sleepSeconds() * 1000L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (r.errno() == -1) {
                return r.out();
            }
            throw new RbdException(site, command, Errno.ETIMEDOUT, "");
        }
        if (r.errno() != 0) {
            throw new RbdException(site, command, r.errno(), r.text(), opening);
        }
        return r.out();
    }

    private final class Site implements RbdSite {
        private final String side;
        private final String name;

        Site(String side, String name) {
            this.side = side;
            this.name = name;
        }

        private String ask(String command) {
            return answer(name, side + " " + command, true);
        }

        private <T> T askOr(String command, Function<String, T> read) {
            return read.apply(answer(name, side + " " + command, false));
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String pool() {
            return "rbd";
        }

        @Override
        public void connect() {}

        @Override
        public void ping() {
            pings.incrementAndGet();
            try {
                Thread.sleep(pingSleepMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public RbdImage image(String id) {
            return RbdFixtures.image(id, ask("info rbd/" + id));
        }

        @Override
        public MirrorStatus mirrorStatus(String id) {
            return RbdFixtures.status(ask("mirror image status rbd/" + id));
        }

        @Override
        public MirrorSnapshots snapshots(String id) {
            return RbdFixtures.snapshots(ask("snap ls --all rbd/" + id));
        }

        @Override
        public Map<String, String> metadata(String id) {
            return RbdFixtures.metadata(ask("image-meta list rbd/" + id));
        }

        @Override
        public void setMetadata(String id, String key, String value) {
            ask("image-meta set rbd/" + id + " " + key + " " + value);
        }

        @Override
        public void removeMetadata(String id, String key) {
            ask("image-meta remove rbd/" + id + " " + key);
        }

        @Override
        public void enable(String id) {
            ask("mirror image enable rbd/" + id + " snapshot");
        }

        @Override
        public void disable(String id, boolean force) {
            ask("mirror image disable " + (force ? "--force " : "") + "rbd/" + id);
        }

        @Override
        public void promote(String id, boolean force) {
            ask("mirror image promote " + (force ? "--force " : "") + "rbd/" + id);
        }

        @Override
        public void demote(String id) {
            ask("mirror image demote rbd/" + id);
        }

        @Override
        public void resync(String id) {
            ask("mirror image resync rbd/" + id);
        }

        @Override
        public boolean inTrashForMirroring(String id) {
            return askOr("trash ls rbd --all --long", out -> RbdFixtures.inTrashForMirroring(out, id));
        }

        @Override
        public List<SnapshotSchedule> schedules(String id) {
            try {
                return askOr("mirror snapshot schedule ls --pool rbd --image " + id, RbdFixtures::schedules);
            } catch (RbdException e) {
                if (e.is(Errno.ENOENT)) {
                    return List.of(); // rbd answered ENOENT, printing nothing, for no schedule
                }
                throw e;
            }
        }

        @Override
        public void addSchedule(String id, SnapshotSchedule s) {
            askOr(
                    "mirror snapshot schedule add --pool rbd --image " + id + " " + s.interval()
                            + (s.startTime().isEmpty() ? "" : " " + s.startTime()),
                    out -> out);
        }

        @Override
        public void removeSchedules(String id) {
            try {
                askOr("mirror snapshot schedule remove --pool rbd --image " + id, out -> out);
            } catch (RbdException e) {
                if (!RbdErrors.noScheduleToRemove(e)) {
                    throw e;
                }
            }
        }

        @Override
        public Optional<String> poolMetadata(String key) {
            return Optional.ofNullable(poolMetadata.get(side + ":" + key));
        }

        @Override
        public void setPoolMetadata(String key, String value) {
            poolMetadata.put(side + ":" + key, value);
        }

        @Override
        public void removePoolMetadata(String key) {
            poolMetadata.remove(side + ":" + key);
        }

        @Override
        public Optional<PeerCredentials> peer() {
            return askOr("mirror pool info rbd --all", RbdFixtures::peer);
        }

        @Override
        public void close() {}
    }
}

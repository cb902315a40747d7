package io.volrep.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class HarnessTest {
    private static Harness harness(String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return new Harness(Harness.Settings.parse(args), sink, sink);
    }

    @Test
    void defaultsRunEveryPairSixRoundsBothSidesInOneFork() {
        Harness.Settings s = Harness.Settings.parse();
        assertThat(s.rounds()).isEqualTo(6);
        assertThat(s.maxRounds()).isEqualTo(12);
        // On 2 cores C2 compiles for about 7 one-second iterations of a fork running both sides
        // (docs/benchmarks.md, "How noise is handled"): the warm-up outlasts it.
        assertThat(s.warmupIterations()).isEqualTo(10);
        assertThat(s.iterations()).isEqualTo(8);
        // Each suite's own limit (issue #48): the client's pairs 1.10, the server's 1.05; --target overrides both.
        assertThat(s.target()).isNull();
        assertThat(Harness.Suite.CLIENT.target).isEqualTo(1.10);
        assertThat(Harness.Suite.SERVER.target).isEqualTo(1.05);
        assertThat(Harness.Settings.parse("--target", "1.2").target()).isEqualTo(1.2);
        assertThat(s.maxWidth()).isEqualTo(0.10);
        assertThat(s.budgetNanos()).isEqualTo(1000);
        assertThat(s.budgetMinutes()).isEqualTo(30);
        assertThat(s.separateForks()).isFalse();
        assertThat(harness().selected())
                .extracting(Harness.Pair::name)
                .containsExactly(
                        "client-blocking-unix",
                        "client-async64-unix",
                        "client-direct-async64-unix",
                        "server-unix",
                        "server-direct-unix",
                        "client-blocking-inprocess",
                        "client-async64-inprocess",
                        "client-direct-async64-inprocess",
                        "server-inprocess",
                        "server-direct-inprocess",
                        "grpc-retry-layer-unix",
                        "micrometer-binding-inprocess",
                        "log-line-slf4j-simple-inprocess",
                        "log-line-logback-inprocess");
    }

    @Test
    void exactlyTheFiveUnixPairsAreTargets() {
        assertThat(Harness.PAIRS)
                .filteredOn(p -> p.kind() == Harness.Kind.TARGET)
                .extracting(Harness.Pair::name)
                .containsExactly(
                        "client-blocking-unix",
                        "client-async64-unix",
                        "client-direct-async64-unix",
                        "server-unix",
                        "server-direct-unix");
        assertThat(Harness.PAIRS)
                .filteredOn(p -> p.transport().equals("inprocess") && p.kind() != Harness.Kind.DIAGNOSTIC)
                .allMatch(p -> p.kind() == Harness.Kind.COST)
                .hasSize(5);
    }

    @Test
    void pairsCompareLikeWithLike() {
        Harness.Pair server = pair("server-unix");
        assertThat(server.rawMethod()).isEqualTo("rawDefaultExecutor");
        assertThat(server.volrepMethod()).isEqualTo("volrep");
        // The per-call INFO line off on both sides of a server target: the raw handler logs nothing.
        assertThat(server.rawJvmArgs()).containsExactly(Harness.CALL_LOG_OFF);
        assertThat(server.volrepJvmArgs()).containsExactly(Harness.CALL_LOG_OFF);
        assertThat(server.alternates()).isTrue();
        assertThat(pair("server-direct-unix").rawMethod()).isEqualTo("raw");
        assertThat(pair("client-async64-unix").rawMethod()).isEqualTo("rawExecutorAsync64");
        assertThat(pair("client-direct-async64-unix").rawMethod()).isEqualTo("rawAsync64");
        // The log line's own cost: one fork per side, the line off against on, per binding.
        Harness.Pair simple = pair("log-line-slf4j-simple-inprocess");
        assertThat(simple.alternates()).isFalse();
        assertThat(simple.rawJvmArgs()).containsExactly(Harness.CALL_LOG_OFF);
        assertThat(simple.volrepJvmArgs()).isEmpty();
        Harness.Pair logback = pair("log-line-logback-inprocess");
        assertThat(logback.rawJvmArgs()).containsExactly(Harness.LOGBACK, Harness.LOGBACK_CALL_LOG_OFF);
        assertThat(logback.volrepJvmArgs()).containsExactly(Harness.LOGBACK);
    }

    @Test
    void alternatingForksMeasureBothSidesInAbbaOrder() {
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            order.append(AlternatingSides.volrepTurn(i) ? 'V' : 'R');
        }
        assertThat(order).hasToString("RVVRRVVR");
        assertThatThrownBy(() -> Harness.Settings.parse("--iterations", "3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--iterations must be even");
        assertThat(Harness.Settings.parse("--iterations", "3", "--separate-forks")
                        .iterations())
                .isEqualTo(3);
        Harness.Score combined =
                Harness.combine(List.of(new Harness.Score(2, "us/op", 100), new Harness.Score(8, "us/op", 300)));
        assertThat(combined.time()).isCloseTo(4, Offset.offset(1e-9));
        assertThat(combined.bytesPerOp()).isEqualTo(200);
        assertThat(combined.nanos()).isCloseTo(4000, Offset.offset(1e-6));
    }

    private static Harness.Pair pair(String name) {
        return Harness.PAIRS.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void onlySelectsPairsByName() {
        assertThat(harness("--only", "client-.*-unix", "--rounds", "3").selected())
                .extracting(Harness.Pair::name)
                .containsExactly("client-blocking-unix", "client-async64-unix", "client-direct-async64-unix");
    }

    @Test
    void jvmArgumentsAreCollectedInOrder() {
        assertThat(Harness.Settings.parse().jvmArgs()).isEmpty();
        assertThat(Harness.Settings.parse("--jvm-arg", "-Da=1", "--rounds", "2", "--jvm-arg", "-Xmx1g")
                        .jvmArgs())
                .containsExactly("-Da=1", "-Xmx1g");
        assertThatThrownBy(() -> Harness.Settings.parse("--jvm-arg"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--jvm-arg needs a value");
    }

    @Test
    void moreRoundsGoOnlyToUnresolvedPairsUpToTheMaximum() {
        assertThat(Harness.Settings.parse("--rounds", "30").maxRounds()).isEqualTo(30);
        assertThat(Harness.Settings.parse("--rounds", "3", "--max-rounds", "3").maxRounds())
                .isEqualTo(3);
        assertThatThrownBy(() -> Harness.Settings.parse("--rounds", "10", "--max-rounds", "5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--max-rounds 5 is below --rounds 10");

        Harness h = harness("--rounds", "3");
        List<Harness.Pair> pairs = List.of(
                pair("client-blocking-unix"),
                pair("server-unix"),
                pair("client-blocking-inprocess"),
                pair("micrometer-binding-inprocess"));
        List<List<Harness.Score>> raw = List.of(
                List.of(score(10), score(10), score(10)),
                List.of(score(10), score(20), score(10)),
                List.of(score(10), score(10), score(10)),
                List.of(score(10), score(20), score(10)));
        List<List<Harness.Score>> volrep = List.of(
                List.of(score(20), score(20), score(20)),
                List.of(score(10), score(10), score(20)),
                // In-process costs are judged in ns against the 1 us budget: 0.5, 1.5 and 1.0 us added straddle it.
                List.of(score(10.5), score(11.5), score(11)),
                List.of(score(10), score(10), score(20)));
        // A steady 2.0 is resolved (a fail); the noisy ratio is not, whatever its value, nor the cost across the
        // budget; a diagnostic never gets more rounds.
        assertThat(h.unresolved(pairs, raw, volrep)).containsExactly(1, 2);
    }

    @Test
    void badOptionsAreNamed() {
        assertThatThrownBy(() -> Harness.Settings.parse("--rounds", "0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rounds");
        assertThatThrownBy(() -> Harness.Settings.parse("--rounds"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rounds needs a value");
        assertThatThrownBy(() -> Harness.Settings.parse("--fast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option --fast");
    }

    @Test
    void reportPrintsDetailsAllocThenANoteThenDiagnosticsCostsAndRatiosLast() {
        Harness h = harness("--rounds", "3");
        List<Harness.Pair> pairs = List.of(
                pair("client-blocking-unix"),
                pair("client-async64-unix"),
                pair("server-inprocess"),
                pair("micrometer-binding-inprocess"));
        Harness.Score[][] raw = {
            {score(10), score(10), score(10)},
            {score(10), score(20), score(10)},
            {score(10), score(10), score(10)},
            {score(10), score(10), score(10)}
        };
        Harness.Score[][] volrep = {
            {score(10.2, 6000), score(10.2, 6000), score(10.2, 6000)},
            {score(10), score(10), score(20)},
            {score(10.3), score(10.4), score(10.5)},
            {score(11), score(11), score(11)}
        };
        List<String> lines = h.report(pairs, raw, volrep);
        assertThat(lines).hasSize(13);
        assertThat(lines.get(0))
                .isEqualTo("detail client-blocking-unix raw 10.000 us/op volrep 10.200 us/op"
                        + " (geometric means of 3 rounds)");
        assertThat(lines.get(1))
                .isEqualTo("alloc client-blocking-unix raw 4000 B/op volrep 6000 B/op difference" + " +2000 B/op");
        assertThat(lines.get(8)).startsWith("note 1 of 3 targets and costs unresolved");
        assertThat(lines.get(9))
                .isEqualTo("diagnostic micrometer-binding-inprocess ratio 1.100 [1.100, 1.100]"
                        + " adds 1000 ns/call [1000, 1000]");
        assertThat(lines.get(10)).isEqualTo("cost server-inprocess 400 ns/call [152, 648] pass (budget 1000 ns)");
        assertThat(lines.get(11)).isEqualTo("ratio client-blocking-unix 1.020 [1.020, 1.020] pass");
        // A client target is judged against the client's 1.10, a server target against the server's 1.05.
        Harness.Score[][] steady = {{score(10), score(10), score(10)}};
        Harness.Score[][] slower = {{score(10.8), score(10.8), score(10.8)}};
        assertThat(h.report(List.of(pair("client-blocking-unix")), steady, slower))
                .last()
                .isEqualTo("ratio client-blocking-unix 1.080 [1.080, 1.080] pass");
        assertThat(h.report(List.of(pair("server-unix")), steady, slower))
                .last()
                .isEqualTo("ratio server-unix 1.080 [1.080, 1.080] fail");
        assertThat(lines.get(12))
                .startsWith("ratio client-async64-unix 1.000 [")
                .endsWith("] unresolved");

        // One round: the interval is unknown, and says so.
        List<String> one =
                h.report(List.of(pair("server-inprocess")), new Harness.Score[][] {{score(10)}}, new Harness.Score[][] {
                    {score(10.5)}
                });
        assertThat(one.get(one.size() - 1))
                .isEqualTo("cost server-inprocess 500 ns/call [-inf, inf] unresolved" + " (budget 1000 ns)");
    }

    private static Harness.Score score(double time) {
        return score(time, 4000);
    }

    private static Harness.Score score(double time, double bytesPerOp) {
        return new Harness.Score(time, "us/op", bytesPerOp);
    }
}

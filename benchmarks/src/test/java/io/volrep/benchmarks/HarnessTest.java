package io.volrep.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class HarnessTest {
    private static Harness harness(String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return new Harness(Harness.Settings.parse(args), sink, sink);
    }

    @Test
    void defaultsRunEveryPairTenRounds() {
        Harness.Settings s = Harness.Settings.parse();
        assertThat(s.rounds()).isEqualTo(10);
        assertThat(s.maxRounds()).isEqualTo(20);
        assertThat(s.target()).isEqualTo(1.05);
        assertThat(s.maxWidth()).isEqualTo(0.10);
        assertThat(harness().selected()).extracting(Harness.Pair::name).containsExactly(
                "client-blocking-inprocess", "client-async64-inprocess", "client-direct-async64-inprocess",
                "server-inprocess", "server-direct-inprocess", "server-same-executor-inprocess",
                "client-blocking-unix", "client-async64-unix", "client-direct-async64-unix", "server-unix",
                "server-direct-unix", "server-same-executor-unix", "micrometer-binding-inprocess");
    }

    @Test
    void onlySelectsPairsByName() {
        assertThat(harness("--only", "client-.*-unix", "--rounds", "3").selected()).extracting(Harness.Pair::name)
                .containsExactly("client-blocking-unix", "client-async64-unix", "client-direct-async64-unix");
    }

    @Test
    void jvmArgumentsAreCollectedInOrder() {
        assertThat(Harness.Settings.parse().jvmArgs()).isEmpty();
        assertThat(Harness.Settings.parse("--jvm-arg", "-Da=1", "--rounds", "2", "--jvm-arg", "-Xmx1g").jvmArgs())
                .containsExactly("-Da=1", "-Xmx1g");
        assertThatThrownBy(() -> Harness.Settings.parse("--jvm-arg"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--jvm-arg needs a value");
    }

    @Test
    void moreRoundsGoOnlyToUnresolvedPairsUpToTheMaximum() {
        assertThat(Harness.Settings.parse("--rounds", "30").maxRounds()).isEqualTo(30);
        assertThat(Harness.Settings.parse("--rounds", "3", "--max-rounds", "3").maxRounds()).isEqualTo(3);
        assertThatThrownBy(() -> Harness.Settings.parse("--rounds", "10", "--max-rounds", "5"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--max-rounds 5 is below --rounds 10");

        Harness h = harness("--rounds", "3");
        List<List<Harness.Score>> raw = List.of(
                List.of(score(10), score(10), score(10)),
                List.of(score(10), score(20), score(10)),
                List.of(score(10), score(10), score(10)));
        List<List<Harness.Score>> volrep = List.of(
                List.of(score(20), score(20), score(20)),
                List.of(score(10), score(10), score(20)),
                List.of(score(10.1), score(9.9), score(10)));
        // A steady 2.0 is resolved (a fail), so is a steady 1.0 (a pass); the noisy pair is not, whatever its value.
        assertThat(h.unresolved(raw, volrep)).containsExactly(1);
    }

    @Test
    void badOptionsAreNamed() {
        assertThatThrownBy(() -> Harness.Settings.parse("--rounds", "0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rounds");
        assertThatThrownBy(() -> Harness.Settings.parse("--rounds"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rounds needs a value");
        assertThatThrownBy(() -> Harness.Settings.parse("--fast"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown option --fast");
    }

    @Test
    void reportPrintsDetailsThenANoteThenTheRatios() {
        Harness h = harness("--rounds", "3");
        List<Harness.Pair> pairs = h.selected().subList(0, 2);
        Harness.Score[][] raw = {
            {score(10), score(10), score(10)},
            {score(10), score(20), score(10)}};
        Harness.Score[][] volrep = {
            {score(10.2), score(10.2), score(10.2)},
            {score(10), score(10), score(20)}};
        List<String> lines = h.report(pairs, raw, volrep);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).startsWith("detail client-blocking-inprocess raw 10.000 us/op 4000 B/op volrep"
                + " 10.200 us/op 4000 B/op");
        assertThat(lines.get(2)).startsWith("note 1 of 2 ratios unresolved");
        assertThat(lines.get(3)).isEqualTo("ratio client-blocking-inprocess 1.020 [1.020, 1.020] pass");
        assertThat(lines.get(4)).startsWith("ratio client-async64-inprocess 1.000 [").endsWith("] unresolved");
    }

    private static Harness.Score score(double time) {
        return new Harness.Score(time, "us/op", 4000);
    }
}

package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * README.md's table of the {@code volrep} commands says what {@code --help} says (issue 49 point 10): each command
 * has a row; a row shows every option of its commands and no other, under a name the command knows, with the
 * placeholder {@code --help} shows; an option shown bare is required and one in brackets is not. The options every
 * call command shares are one row, {@code [CALL OPTIONS]}, which the other rows name. A failure prints the synopsis
 * the command's model gives, to paste into the row.
 */
class ReadmeCommandTableTest {
    static final Path README = Path.of(System.getProperty("volrep.root", ".."), "README.md");
    static final String CALL_OPTIONS = "[CALL OPTIONS]";

    /** One row: the commands it names (e.g. {@code group create}) and the synopsis after them. */
    record Row(List<String> commands, String synopsis, String line) {}

    /** An option as the row shows it. */
    record Shown(String name, String placeholder, boolean optional, boolean alternative) {}

    static List<String> tableRows() throws IOException {
        List<String> lines = Files.readAllLines(README);
        int start = lines.indexOf("## The `volrep` command line");
        assertThat(start).as("README.md has the section").isNotNegative();
        List<String> rows = new ArrayList<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            if (lines.get(i).startsWith("| `")) {
                rows.add(lines.get(i));
            }
        }
        return rows;
    }

    /** The first cell's code, {@code \|} unescaped. */
    static String firstCell(String row) {
        String[] cells = row.substring(1).split("(?<!\\\\)\\|");
        return cells[0].strip().replace("\\|", "|");
    }

    static List<Row> rows() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : tableRows()) {
            Matcher code = Pattern.compile("`([^`]*)`").matcher(firstCell(line));
            while (code.find()) {
                String text = code.group(1);
                if (!text.startsWith("volrep ")) {
                    continue;
                }
                List<String> words = new ArrayList<>(
                        List.of(text.substring("volrep ".length()).split(" ")));
                List<String> names = new ArrayList<>();
                while (!words.isEmpty() && words.get(0).matches("[a-z][a-z-]*(\\|[a-z][a-z-]*)*")) {
                    names.add(words.remove(0));
                }
                List<String> commands = new ArrayList<>();
                String prefix = names.size() > 1 ? String.join(" ", names.subList(0, names.size() - 1)) + " " : "";
                for (String alternative : names.get(names.size() - 1).split("\\|")) {
                    commands.add(prefix + alternative);
                }
                rows.add(new Row(commands, String.join(" ", words), line));
            }
        }
        return rows;
    }

    /** The options a synopsis shows, with their brackets. */
    static List<Shown> shown(String synopsis) {
        List<Shown> shown = new ArrayList<>();
        String[] tokens = synopsis.split(" ");
        int brackets = 0;
        int parentheses = 0;
        for (int i = 0; i < tokens.length; i++) {
            String t = tokens[i];
            String bare = t.replaceAll("^[\\[(]+", "");
            brackets += count(t, '[');
            parentheses += count(t, '(');
            Matcher m = Pattern.compile("^(--?[a-zA-Z][a-z-]*)").matcher(bare);
            if (m.find()) {
                String name = m.group(1);
                String placeholder = null;
                boolean closed = bare.length() > name.length();
                if (!closed && i + 1 < tokens.length && !tokens[i + 1].matches("[-\\[(|].*")) {
                    placeholder =
                            tokens[i + 1].replaceAll("(\\.\\.\\.|[\\])])+$", "").replaceAll("\\.\\.\\.$", "");
                }
                shown.add(new Shown(name, placeholder, brackets > 0, parentheses > 0));
            }
            brackets -= count(t, ']');
            parentheses -= count(t, ')');
        }
        return shown;
    }

    private static int count(String s, char c) {
        return (int) s.chars().filter(x -> x == c).count();
    }

    static Map<String, CommandSpec> commands() {
        Map<String, CommandSpec> all = new LinkedHashMap<>();
        for (CommandSpec c : CliVocabularyTest.commands()) {
            String name = c.qualifiedName().substring("volrep".length()).strip();
            if (!name.isEmpty() && !name.equals("group")) {
                all.put(name, c);
            }
        }
        return all;
    }

    static boolean documented(OptionSpec o) {
        return !o.usageHelp() && !o.versionHelp();
    }

    /** The shared call options: those of the {@link ClientOptions} mixin, as {@code volrep enable} has them. */
    static Set<OptionSpec> callOptions(CommandSpec command) {
        CommandSpec client = command.mixins().get("client");
        if (client == null) {
            return Set.of();
        }
        Set<String> names =
                client.options().stream().map(OptionSpec::longestName).collect(Collectors.toSet());
        return command.options().stream()
                .filter(o -> names.contains(o.longestName()))
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    @Test
    void everyCommandHasARowThatMatchesItsHelp() throws IOException {
        List<Row> rows = rows();
        Map<String, CommandSpec> commands = commands();
        List<String> problems = new ArrayList<>();
        Set<String> covered = new LinkedHashSet<>();
        for (Row row : rows) {
            List<Shown> shown = shown(row.synopsis().replace(CALL_OPTIONS, ""));
            boolean withCallOptions = row.synopsis().contains(CALL_OPTIONS);
            Map<String, OptionSpec> union = new LinkedHashMap<>();
            for (String name : row.commands()) {
                CommandSpec c = commands.get(name);
                if (c == null) {
                    problems.add(row.line() + ": no command 'volrep " + name + "'");
                    continue;
                }
                covered.add(name);
                Set<OptionSpec> shared = withCallOptions ? callOptions(c) : Set.of();
                if (withCallOptions && shared.isEmpty()) {
                    problems.add("volrep " + name + " has no call options, but its row names " + CALL_OPTIONS);
                }
                for (OptionSpec o : c.options()) {
                    if (documented(o) && !shared.contains(o)) {
                        union.putIfAbsent(o.longestName(), o);
                    }
                }
                for (Shown s : shown) {
                    OptionSpec o = c.findOption(s.name());
                    if (o == null) {
                        if (row.commands().size() == 1) {
                            problems.add("volrep " + name + " has no option " + s.name() + " (README.md shows it)");
                        }
                        continue;
                    }
                    if (s.placeholder() != null && !s.placeholder().equals(o.paramLabel())) {
                        problems.add("volrep " + name + " " + s.name() + ": README.md shows " + s.placeholder()
                                + ", --help shows " + o.paramLabel());
                    }
                    if (s.placeholder() == null && o.arity().max() > 0) {
                        problems.add("volrep " + name + " " + s.name()
                                + ": README.md shows no placeholder, --help shows " + o.paramLabel());
                    }
                    boolean required = o.required() && requiredGroup(o.group());
                    if (!s.alternative() && s.optional() == required) {
                        problems.add("volrep " + name + " " + s.name() + ": README.md shows it "
                                + (s.optional() ? "optional" : "required") + ", --help "
                                + (required ? "required" : "optional"));
                    }
                }
            }
            for (OptionSpec o : union.values()) {
                if (shown.stream().noneMatch(s -> List.of(o.names()).contains(s.name()))) {
                    problems.add(
                            "volrep " + String.join("|", row.commands()) + ": README.md does not show " + shownAs(o));
                }
            }
            for (Shown s : shown) {
                boolean known = row.commands().stream()
                        .map(commands::get)
                        .anyMatch(c -> c != null && c.findOption(s.name()) != null);
                if (!known) {
                    problems.add("volrep " + String.join("|", row.commands()) + ": no option " + s.name());
                }
            }
        }
        Set<String> missing = new LinkedHashSet<>(commands.keySet());
        missing.removeAll(covered);
        missing.forEach(name -> problems.add("README.md has no row for volrep " + name));
        if (!problems.isEmpty()) {
            problems.add("The commands' synopses, from their models:");
            commands.forEach((name, c) -> problems.add("volrep " + name + " " + synopsis(c)));
        }
        assertThat(problems).as("README.md's command table against --help").isEmpty();
    }

    @Test
    void theCallOptionsRowIsTheClientOptions() throws IOException {
        String row = tableRows().stream()
                .filter(r -> firstCell(r).startsWith("`" + CALL_OPTIONS + "`"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("README.md has no " + CALL_OPTIONS + " row"));
        List<Shown> shown =
                shown(firstCell(row).replaceAll("^`\\[CALL OPTIONS]`[^`]*`", "").replace("`", ""));
        CommandSpec enable = commands().get("enable");
        Set<String> expected = callOptions(enable).stream()
                .map(OptionSpec::longestName)
                .collect(Collectors.toCollection(LinkedHashSet::new));
        Set<String> actual = new LinkedHashSet<>();
        for (Shown s : shown) {
            OptionSpec o = enable.findOption(s.name());
            assertThat(o).as("volrep enable %s", s.name()).isNotNull();
            assertThat(s.optional()).as("%s is optional", s.name()).isTrue();
            if (o.arity().max() > 0) {
                assertThat(s.placeholder()).as("%s's placeholder", s.name()).isEqualTo(o.paramLabel());
            }
            actual.add(o.longestName());
        }
        assertThat(actual).as("the call options; --help: %s", synopsis(enable)).isEqualTo(expected);
    }

    private static boolean requiredGroup(ArgGroupSpec group) {
        for (ArgGroupSpec g = group; g != null; g = g.parentGroup()) {
            if (g.multiplicity().min() == 0 || (g.exclusive() && g.args().size() > 1)) {
                return false;
            }
        }
        return true;
    }

    /** A command's synopsis in README.md's form, from its model (its options in declaration order). */
    static String synopsis(CommandSpec c) {
        Set<OptionSpec> shared = callOptions(c);
        List<String> parts = new ArrayList<>();
        Set<ArgGroupSpec> groupsDone = new LinkedHashSet<>();
        for (OptionSpec o : c.options()) {
            if (!documented(o) || shared.contains(o)) {
                continue;
            }
            if (o.group() != null) {
                ArgGroupSpec g = o.group();
                if (groupsDone.add(g)) {
                    String inner = g.options().stream()
                            .map(ReadmeCommandTableTest::shownAs)
                            .collect(Collectors.joining(g.exclusive() ? " | " : " "));
                    parts.add(g.multiplicity().min() > 0 ? "(" + inner + ")" : "[" + inner + "]");
                }
                continue;
            }
            String one = shownAs(o);
            parts.add(o.required() ? one : "[" + one + "]" + (o.isMultiValue() ? "..." : ""));
        }
        if (!shared.isEmpty()) {
            parts.add(CALL_OPTIONS);
        }
        return String.join(" ", parts);
    }

    private static String shownAs(OptionSpec o) {
        return o.arity().max() > 0 ? o.longestName() + " " + o.paramLabel() : o.longestName();
    }
}

package io.volrep.testkit;

import io.volrep.api.SpecDialect;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every built-in check id of every dialect, as {@code docs/check-ids.md} holds it: generated from the checks
 * themselves, so the published list cannot drift from what {@code --skip} accepts (a test compares the two).
 * Per-fixture ids are shown with the placeholders {@value #VOLUME} and {@value #GROUP}.
 */
final class CheckCatalog {
    static final String VOLUME = "<volume>";
    static final String GROUP = "<group>";

    private CheckCatalog() {}

    /** One id: its level in each dialect that has it, its group, and its name in each dialect. */
    record Entry(String id, String group, Map<SpecDialect, String> names, Map<SpecDialect, Requirement> levels) {

        /**
         * The name, or where the dialects name (and so judge) it differently, each name followed by its dialects:
         * {@code "... -> 0 OK (current); ... -> 3 INVALID_ARGUMENT (upstream-2026)"}.
         */
        String name() {
            Map<String, List<String>> dialectsByName = new LinkedHashMap<>();
            names.forEach((d, n) ->
                    dialectsByName.computeIfAbsent(n, k -> new ArrayList<>()).add(d.cliName()));
            if (dialectsByName.size() == 1) {
                return dialectsByName.keySet().iterator().next();
            }
            List<String> parts = new ArrayList<>();
            dialectsByName.forEach((n, ds) -> parts.add(n + " (" + String.join(", ", ds) + ")"));
            return String.join("; ", parts);
        }
    }

    /** Every built-in check of every dialect, in run order (an id only some dialects have, after its predecessor). */
    static List<Entry> entries() {
        List<String> order = new ArrayList<>();
        Map<String, String> groups = new LinkedHashMap<>();
        Map<String, Map<SpecDialect, String>> names = new LinkedHashMap<>();
        Map<String, Map<SpecDialect, Requirement>> levels = new LinkedHashMap<>();
        for (SpecDialect dialect : SpecDialect.values()) {
            String previous = null;
            for (CheckGroup group : ConformanceChecks.builtIn()) {
                for (Check check : checks(group, dialect)) {
                    if (!levels.containsKey(check.id())) {
                        order.add(previous == null ? 0 : order.indexOf(previous) + 1, check.id());
                        groups.put(check.id(), group.name());
                    }
                    names.computeIfAbsent(check.id(), id -> new EnumMap<>(SpecDialect.class))
                            .put(dialect, check.name());
                    levels.computeIfAbsent(check.id(), id -> new EnumMap<>(SpecDialect.class))
                            .put(dialect, check.requirement());
                    previous = check.id();
                }
            }
        }
        return order.stream()
                .map(id -> new Entry(id, groups.get(id), names.get(id), levels.get(id)))
                .toList();
    }

    /** The group's checks in {@code dialect}, with a group fixture and (for the checks listed only then) without. */
    private static List<Check> checks(CheckGroup group, SpecDialect dialect) {
        ConformanceConfig.Builder config = ConformanceConfig.builder()
                .endpoint("inprocess:volrep-check-catalog")
                .volumes(VOLUME)
                .dialect(dialect)
                .secrets(Map.of("user", "admin"))
                .healerVolume(VOLUME, "/mnt");
        Map<String, Check> checks = new LinkedHashMap<>();
        for (Check c :
                group.checks(config.build().toBuilder().volumeGroups(GROUP).build())) {
            checks.put(c.id(), c);
        }
        List<Check> withoutGroups = group.checks(config.build());
        for (int i = 0; i < withoutGroups.size(); i++) {
            Check c = withoutGroups.get(i);
            if (!checks.containsKey(c.id())) {
                // After the check that precedes it in this list, as the run would order it.
                List<Check> merged = new ArrayList<>(checks.values());
                int at = i == 0
                        ? 0
                        : merged.indexOf(checks.get(withoutGroups.get(i - 1).id())) + 1;
                merged.add(at, c);
                checks.clear();
                merged.forEach(m -> checks.put(m.id(), m));
            }
        }
        return List.copyOf(checks.values());
    }

    /** The list as Markdown, exactly as {@code docs/check-ids.md} holds it. */
    static String markdown() {
        List<Entry> entries = entries();
        StringBuilder md = new StringBuilder();
        md.append("# Conformance check ids\n\n")
                .append(
                        "<!-- Generated from the checks of io.volrep.testkit (replication-testkit). Do not edit: a test fails\n")
                .append("     when this file and the checks differ. Regenerate with\n")
                .append(
                        "     ./mvnw -pl replication-testkit -am test -Dtest=CheckIdsTest -Dsurefire.failIfNoSpecifiedTests=false")
                .append(" -Dvolrep.regenerateDocs=true -->\n\n")
                .append("Every built-in check of `volrep conformance` and `ReplicationConformanceSuite`: ")
                .append(entries.size())
                .append(
                        " ids over every\ndialect. An id is what `--skip` (`ConformanceConfig.skipChecks`) takes and what stays the same\n")
                .append(
                        "across releases: it is built from the check's structure, never from its name, so a reworded name or\n")
                .append(
                        "error-table row changes no id. See [vendor-ci.md](vendor-ci.md#check-ids) for the grammar and the\n")
                .append("globs.\n\n")
                .append("Ids ending in `")
                .append(VOLUME)
                .append("` or `")
                .append(GROUP)
                .append("` are made once per fixture and end in the fixture's id (`--volume`,\n")
                .append(
                        "`--volume-group`). A level per dialect (`--dialect`); `-` where the dialect has no such check.\n")
                .append(
                        "A name that quotes a row of the spec's error tables quotes its words as they are: where they hold\n")
                .append("a typo, the name says so with `")
                .append(ControllerChecks.SIC)
                .append("` after it.\n\n")
                .append("| id |");
        for (SpecDialect d : SpecDialect.values()) {
            md.append(' ').append(d.cliName()).append(" |");
        }
        md.append(" group | check (its name, per dialect where they differ) |\n|---|");
        for (int i = 0; i < SpecDialect.values().length; i++) {
            md.append("---|");
        }
        md.append("---|---|\n");
        for (Entry e : entries) {
            md.append("| `").append(e.id()).append("` |");
            for (SpecDialect d : SpecDialect.values()) {
                Requirement level = e.levels().get(d);
                md.append(' ').append(level == null ? "-" : level.tag()).append(" |");
            }
            md.append(' ')
                    .append(e.group())
                    .append(" | ")
                    .append(cell(e.name()))
                    .append(" |\n");
        }
        return md.toString();
    }

    /** A name in a table cell: pipes escaped, and a placeholder's "<" escaped, so it is shown, not read as HTML. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("<", "&lt;");
    }
}

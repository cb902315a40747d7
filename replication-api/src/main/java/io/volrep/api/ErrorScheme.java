package io.volrep.api;

import io.volrep.api.internal.Arguments;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The spec's error tables as one immutable table: for each RPC and condition, the gRPC code, the spec's
 * condition, description and recovery text, and the {@link Recovery} class.
 *
 * <p>The client's retry decisions, the SPI's exception mapping and the testkit's expected codes all read
 * this one table, so they cannot drift apart. {@code docs/recovery-table.md} is generated from it.
 *
 * <p><b>One code, several conditions.</b> A row may list several conditions under its code while its recovery text
 * addresses only some: PromoteVolume's 9 FAILED_PRECONDITION reads "replication is not enabled or Source cannot be
 * promoted without force option", and its recovery text is "ensure that replication is enabled". Such a row stands
 * for each condition separately ({@link Row#cases()}), each with the recovery that fits it: the spec's words where
 * they address it, volrep's where the spec gives none ({@link Case#specText()}). Which conditions an answer can stand
 * for is decided by what the request asked ({@link #cases(Rpc, StatusCode, boolean)}: a forced promote is not refused
 * for want of force), never by the plugin's message text; where several remain, the recovery text names each.
 * <pre>{@code
 * ErrorScheme scheme = ErrorScheme.spec();
 * scheme.find(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION)
 *       .map(ErrorScheme.Row::recoveryText)
 *       .ifPresent(System.out::println);
 * scheme.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, true);   // a forced promote's 9
 * }</pre>
 */
public final class ErrorScheme {

    /** Transport codes that appear in no table but are retried with back-off (every method is idempotent). */
    public static final Set<StatusCode> TRANSPORT_BACKOFF_CODES = Collections.unmodifiableSet(
            EnumSet.of(StatusCode.UNAVAILABLE, StatusCode.DEADLINE_EXCEEDED, StatusCode.RESOURCE_EXHAUSTED));

    private static final String CASES = "error-scheme-cases.tsv";
    private static final ErrorScheme SPEC = new ErrorScheme(load(SpecDialect.CURRENT.errorTable(), true));
    private static final Map<SpecDialect, ErrorScheme> BY_DIALECT = new ConcurrentHashMap<>();

    /**
     * One row of a spec table.
     *
     * @param rpc the RPC whose table holds the row
     * @param condition the spec's condition, e.g. "Replication Source is not replicated"
     * @param code the gRPC code volrep sends and expects for the condition
     * @param description the spec's description of the condition
     * @param recoveryText the spec's recovery behaviour, verbatim
     * @param recovery the recovery class
     * @param alsoAccepted other codes read as this row when a plugin answers them (the spec's text names a code
     *                     that does not fit, e.g. upstream's "7 FAILED_PRECONDITION"); empty for almost every row
     * @param cases the conditions the row stands for, each with its recovery: one (the row's own) unless its
     *              description lists several that its recovery text does not all address
     */
    public record Row(
            Rpc rpc,
            String condition,
            StatusCode code,
            String description,
            String recoveryText,
            Recovery recovery,
            Set<StatusCode> alsoAccepted,
            List<Case> cases) {
        public Row {
            Arguments.requireNonNull(
                    "rpc",
                    rpc,
                    "condition",
                    condition,
                    "code",
                    code,
                    "description",
                    description,
                    "recoveryText",
                    recoveryText,
                    "recovery",
                    recovery,
                    "alsoAccepted",
                    alsoAccepted,
                    "cases",
                    cases);
            alsoAccepted =
                    alsoAccepted.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(alsoAccepted));
            cases = List.copyOf(cases);
            if (cases.isEmpty()) {
                throw new IllegalArgumentException("cases: a row stands for at least one condition");
            }
        }

        /** A row that stands for one condition, its own, with its own recovery text, and accepts only its code. */
        public Row(
                Rpc rpc,
                String condition,
                StatusCode code,
                String description,
                String recoveryText,
                Recovery recovery) {
            this(
                    rpc,
                    condition,
                    code,
                    description,
                    recoveryText,
                    recovery,
                    Set.of(),
                    List.of(new Case(
                            condition == null ? "" : condition,
                            false,
                            recoveryText == null ? "" : recoveryText,
                            true)));
        }

        /** True when a plugin answering {@code answered} reports this row's condition: its code, or one also accepted. */
        public boolean accepts(StatusCode answered) {
            return code == answered || alsoAccepted.contains(answered);
        }

        /** The row's name as checks and reports use it: {@code "PromoteVolume: Call not implemented -> 12 UNIMPLEMENTED"}. */
        public String displayName() {
            return rpc.methodName() + ": " + condition + " -> " + code.display();
        }
    }

    /**
     * One condition a {@link Row} stands for, with the recovery that fits it.
     *
     * <pre>{@code
     * for (ErrorScheme.Case c : scheme.cases(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, false)) {
     *     System.out.println(c.condition() + ": " + c.recoveryText() + (c.specText() ? "" : " (volrep)"));
     * }
     * }</pre>
     *
     * @param condition the condition as it reads after "If", e.g. "replication is not enabled"
     * @param unforcedOnly whether only a request without {@code force} can meet it (force is what overrides it)
     * @param recoveryText what the caller should do when it holds
     * @param specText whether {@code recoveryText} is the spec's own text (verbatim), or volrep's where the spec
     *                 gives the condition no recovery
     */
    public record Case(String condition, boolean unforcedOnly, String recoveryText, boolean specText) {
        public Case {
            Arguments.requireNonNull("condition", condition, "recoveryText", recoveryText);
        }

        /** Whether an answer to a request that did ({@code forced}) or did not ask for force can stand for it. */
        public boolean canAnswer(boolean forced) {
            return !(forced && unforcedOnly);
        }
    }

    private final List<Row> rows;
    private final Map<Rpc, List<Row>> byRpc;

    private ErrorScheme(List<Row> rows) {
        this.rows = List.copyOf(rows);
        Map<Rpc, List<Row>> grouped = new EnumMap<>(Rpc.class);
        for (Row row : this.rows) {
            grouped.computeIfAbsent(row.rpc(), r -> new ArrayList<>()).add(row);
        }
        grouped.replaceAll((rpc, list) -> List.copyOf(list));
        this.byRpc = Collections.unmodifiableMap(grouped);
    }

    /**
     * The tables of the current replication spec (seed 001), the NodeHealer spec (seed 002) and upstream's
     * {@code volumegroup.Controller}.
     */
    public static ErrorScheme spec() {
        return SPEC;
    }

    /**
     * The tables of a spec revision: {@link SpecDialect#CURRENT} and {@link SpecDialect#UPSTREAM_2026} are
     * {@link #spec()}; the legacy revisions have their own replication tables (v0.1.0 has five RPCs and speaks of
     * volumes) and share the NodeHealer and volume group tables, services with one revision.
     */
    public static ErrorScheme forDialect(SpecDialect dialect) {
        return dialect.errorTable().equals(SpecDialect.CURRENT.errorTable())
                ? SPEC
                : BY_DIALECT.computeIfAbsent(dialect, d -> legacy(d.errorTable()));
    }

    /** Every row, in spec order. */
    public List<Row> rows() {
        return rows;
    }

    /** The rows of one RPC's table, in spec order; empty for an RPC without a table. */
    public List<Row> rows(Rpc rpc) {
        return byRpc.getOrDefault(rpc, List.of());
    }

    /**
     * The row of {@code rpc}'s table with {@code code}, if the table has one: the first row of that code, else the
     * row that also accepts it ({@link Row#alsoAccepted()}: upstream's "7" for CreateVolumeGroup finds its 9 row).
     */
    public Optional<Row> find(Rpc rpc, StatusCode code) {
        Row accepting = null;
        for (Row row : rows(rpc)) {
            if (row.code() == code) {
                return Optional.of(row);
            }
            if (accepting == null && row.alsoAccepted().contains(code)) {
                accepting = row;
            }
        }
        return Optional.ofNullable(accepting);
    }

    /**
     * The row of {@code rpc}'s table whose condition is {@code condition}, for tables with two rows of one code
     * (CreateVolumeGroup's "Missing required field" and "Not supported" are both 3 INVALID_ARGUMENT).
     *
     * <pre>{@code
     * scheme.find(Rpc.CREATE_VOLUME_GROUP, "Not supported").orElseThrow().recoveryText();  // "Caller MUST use different parameters."
     * }</pre>
     */
    public Optional<Row> find(Rpc rpc, String condition) {
        return rows(rpc).stream().filter(r -> r.condition().equals(condition)).findFirst();
    }

    /** True when the spec's table for {@code rpc} lists {@code code}, as a row's code or a code it also accepts. */
    public boolean lists(Rpc rpc, StatusCode code) {
        return find(rpc, code).isPresent();
    }

    /**
     * The code volrep reads {@code code} from {@code rpc} as: the row's own code when the row only also accepts
     * {@code code}, else {@code code} itself.
     *
     * <pre>{@code
     * scheme.canonical(Rpc.CREATE_VOLUME_GROUP, StatusCode.PERMISSION_DENIED);   // FAILED_PRECONDITION
     * }</pre>
     */
    public StatusCode canonical(Rpc rpc, StatusCode code) {
        return find(rpc, code).map(Row::code).orElse(code);
    }

    /**
     * What a caller should do after {@code code} from {@code rpc}: the row's class, the back-off class for
     * the transport codes, and {@link Recovery#forCode} for codes outside the table. The Identity RPCs have no
     * table in the spec: their transport codes are {@link Recovery#BACKOFF} as for every method, 12 UNIMPLEMENTED
     * (the plugin serves no Identity service) is {@link Recovery#NEVER}, and every other code is
     * {@link Recovery#INSPECT_LOGS}, since an Identity request carries nothing to fix, concerns no source to
     * verify or wait for, and sends no secrets to renew.
     *
     * <pre>{@code
     * scheme.recovery(Rpc.PROBE, StatusCode.UNAVAILABLE);  // BACKOFF
     * scheme.recovery(Rpc.PROBE, StatusCode.ABORTED);      // INSPECT_LOGS (PromoteVolume: BACKOFF)
     * }</pre>
     */
    public Recovery recovery(Rpc rpc, StatusCode code) {
        if (rpc.isIdentity()) {
            return identityRecovery(code);
        }
        return find(rpc, code).map(Row::recovery).orElseGet(() -> Recovery.forCode(code));
    }

    private static Recovery identityRecovery(StatusCode code) {
        if (TRANSPORT_BACKOFF_CODES.contains(code)) {
            return Recovery.BACKOFF;
        }
        return code == StatusCode.UNIMPLEMENTED ? Recovery.NEVER : Recovery.INSPECT_LOGS;
    }

    /**
     * The conditions that an answer {@code code} of {@code rpc} to a request that did ({@code forced}) or did not
     * ask for force can stand for, with their recovery, in table order (over every row of the table with that code,
     * or with the code a row reads it as: {@link #canonical}); empty for a code outside the table. CreateVolumeGroup's
     * 3 stands for two rows, "Missing required field" and "Not supported", each with its own text.
     */
    public List<Case> cases(Rpc rpc, StatusCode code, boolean forced) {
        StatusCode read = canonical(rpc, code);
        List<Case> cases = new ArrayList<>();
        for (Row row : rows(rpc)) {
            if (row.code() == read) {
                row.cases().stream().filter(c -> c.canAnswer(forced)).forEach(cases::add);
            }
        }
        return List.copyOf(cases);
    }

    /**
     * What the caller should do after {@code code} from {@code rpc}, whatever the request asked: the recovery of
     * each condition the answer can stand for ({@link #recoveryText(Rpc, StatusCode, boolean)} with no force), the
     * row's text verbatim where the row stands for one, a generic phrase for codes outside the table.
     */
    public String recoveryText(Rpc rpc, StatusCode code) {
        return recoveryText(rpc, code, false);
    }

    /**
     * What the caller should do after {@code code} from {@code rpc} answered to a request that did ({@code forced})
     * or did not ask for force: the one condition's recovery text verbatim, or, where the answer can stand for
     * several, each as {@code If <condition>: <recovery>}, volrep's words marked as such; a generic phrase for codes
     * outside the table.
     *
     * <pre>{@code
     * scheme.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, true);
     * // "Caller SHOULD ensure that replication is enabled."
     * scheme.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, false);
     * // "If replication is not enabled: Caller SHOULD ... If it cannot be promoted without force option (volrep's ..."
     * }</pre>
     */
    public String recoveryText(Rpc rpc, StatusCode code, boolean forced) {
        List<Case> cases = cases(rpc, code, forced);
        if (cases.isEmpty()) {
            return recovery(rpc, code).advice();
        }
        if (cases.size() == 1) {
            return cases.get(0).recoveryText();
        }
        StringBuilder text = new StringBuilder();
        for (Case c : cases) {
            text.append(text.length() == 0 ? "" : " ")
                    .append("If ")
                    .append(c.condition())
                    .append(c.specText() ? "" : " (volrep's words; the spec gives this condition no recovery)")
                    .append(": ")
                    .append(c.recoveryText());
        }
        return text.toString();
    }

    /** The table as Markdown, exactly as {@code docs/recovery-table.md} holds it. */
    public String toMarkdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Recovery table\n\n")
                .append(
                        "<!-- Generated from io.volrep.api.ErrorScheme (replication-api). Do not edit: a test fails when\n")
                .append("     this file and the table differ. Regenerate with\n")
                .append(
                        "     ./mvnw -pl replication-api test -Dtest=RecoveryTableDocTest -Dvolrep.regenerateDocs=true -->\n\n")
                .append("Each row is a row of the spec's error tables (")
                .append(rows.size())
                .append(" rows). The `Recovery`\n")
                .append(
                        "class decides what volrep's client does by default; the testkit expects exactly these codes.\n\n")
                .append("| Recovery | volrep client default |\n|---|---|\n")
                .append("| `FIX_REQUEST` | never retried; most are caught before sending |\n")
                .append(
                        "| `VERIFY_THEN_BACKOFF` | retried with back-off only when the `SourceVerifier` approves; else surfaced |\n")
                .append("| `ENSURE_PRECONDITION` | not retried; the exception names the RPC's precondition |\n")
                .append("| `BACKOFF` | retried with exponential back-off and full jitter |\n")
                .append("| `NEVER` | never retried |\n")
                .append(
                        "| `RENEW_SECRETS` | retried once after `SecretsProvider.renew()` gives new secrets; else surfaced |\n")
                .append("| `INSPECT_LOGS` | not retried |\n\n")
                .append("Transport codes in no table (");
        md.append(String.join(
                ", ", TRANSPORT_BACKOFF_CODES.stream().map(StatusCode::display).toList()));
        md.append(") are classed `BACKOFF`: the spec says every method is idempotent.\n");
        md.append("\nThe Identity service (")
                .append(String.join(
                        ", ",
                        Arrays.stream(Rpc.values())
                                .filter(Rpc::isIdentity)
                                .map(Rpc::methodName)
                                .toList()))
                .append(") has no table: its transport codes are `BACKOFF` as everywhere, ")
                .append(StatusCode.UNIMPLEMENTED.display())
                .append(" (no Identity service) is `")
                .append(identityRecovery(StatusCode.UNIMPLEMENTED))
                .append("`, and every other code is `")
                .append(identityRecovery(StatusCode.ABORTED))
                .append("`: its calls concern no source and send no secrets.\n");
        for (Rpc rpc : byRpc.keySet()) {
            md.append("\n## ")
                    .append(rpc.methodName())
                    .append("\n\n")
                    .append("| Condition | gRPC code | Recovery | Spec's recovery behaviour |\n|---|---|---|---|\n");
            for (Row row : rows(rpc)) {
                md.append("| ")
                        .append(cell(row.condition()))
                        .append(" | ")
                        .append(row.code().display());
                for (StatusCode accepted : row.alsoAccepted()) {
                    md.append(" (").append(accepted.display()).append(" accepted)");
                }
                md.append(" | `")
                        .append(row.recovery())
                        .append("` | ")
                        .append(cell(row.recoveryText()))
                        .append(" |\n");
            }
        }
        md.append("\n## Rows that stand for several conditions\n\n")
                .append(
                        "These rows list several conditions under one code, and their recovery text addresses only some of\n")
                .append(
                        "them. volrep gives each condition the recovery that fits it (`volrep`: volrep's words, as the spec\n")
                .append(
                        "gives that condition none) and quotes the ones an answer can stand for: a condition that only a\n")
                .append(
                        "request without force can meet is left out after a forced request. Where several remain, the\n")
                .append("recovery text names each (`If <condition>: <recovery>`).\n\n")
                .append("| RPC | gRPC code | Condition | Requests | Words | Recovery |\n|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            if (row.cases().size() > 1) {
                for (Case c : row.cases()) {
                    md.append("| ")
                            .append(row.rpc().methodName())
                            .append(" | ")
                            .append(row.code().display())
                            .append(" | ")
                            .append(cell(c.condition()))
                            .append(" | ")
                            .append(c.unforcedOnly() ? "without force" : "any")
                            .append(" | ")
                            .append(c.specText() ? "spec" : "volrep")
                            .append(" | ")
                            .append(cell(c.recoveryText()))
                            .append(" |\n");
                }
            }
        }
        return md.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    /** A legacy revision's replication tables, plus the tables of the services no revision changes. */
    private static ErrorScheme legacy(String resource) {
        List<Row> rows = new ArrayList<>(load(resource, false));
        SPEC.rows().stream().filter(r -> !r.rpc().isReplication()).forEach(rows::add);
        return new ErrorScheme(rows);
    }

    /** A code as the tables write it: {@code "9 FAILED_PRECONDITION"}. */
    private static StatusCode code(String cell) {
        return StatusCode.valueOf(cell.substring(cell.indexOf(' ') + 1));
    }

    /**
     * A revision's table, its rows split into {@link Case}s where {@value #CASES} says so. {@code strict}: every case
     * line must apply to a row of this table (the current revision's: the data cannot go stale unnoticed).
     */
    private static List<Row> load(String resource, boolean strict) {
        Map<String, List<String[]>> casesByRow = new LinkedHashMap<>();
        for (String[] cells : lines(CASES, 7, 7)) {
            casesByRow
                    .computeIfAbsent(cells[0] + "\t" + cells[1], k -> new ArrayList<>())
                    .add(cells);
        }
        List<Row> rows = new ArrayList<>();
        // A row's optional sixth cell names its recovery class (default: the code's), its seventh the codes it
        // also accepts, comma-separated.
        for (String[] cells : lines(resource, 5, 7)) {
            Rpc rpc = Rpc.fromMethodName(cells[0])
                    .orElseThrow(() -> new IllegalStateException("unknown RPC in error scheme: " + cells[0]));
            StatusCode code = code(cells[2]);
            Recovery recovery =
                    cells.length > 5 && !cells[5].isEmpty() ? Recovery.valueOf(cells[5]) : Recovery.forCode(code);
            Set<StatusCode> accepted = EnumSet.noneOf(StatusCode.class);
            if (cells.length > 6) {
                for (String other : cells[6].split(",")) {
                    accepted.add(code(other.strip()));
                }
            }
            Row plain = new Row(rpc, cells[1], code, cells[3], cells[4], recovery);
            Row row = new Row(rpc, cells[1], code, cells[3], cells[4], recovery, accepted, plain.cases());
            List<String[]> split = casesByRow.remove(cells[0] + "\t" + cells[2]);
            if (split != null && split.stream().allMatch(c -> row.description().contains(c[2]))) {
                rows.add(new Row(
                        rpc,
                        row.condition(),
                        code,
                        row.description(),
                        row.recoveryText(),
                        row.recovery(),
                        accepted,
                        split.stream().map(c -> toCase(c, row)).toList()));
                continue;
            }
            if (split != null && strict) {
                throw new IllegalStateException(CASES + ": the description of " + row.displayName()
                        + " does not name every condition given for it");
            }
            rows.add(row);
        }
        if (strict && !casesByRow.isEmpty()) {
            throw new IllegalStateException(CASES + ": no row for " + casesByRow.keySet());
        }
        return rows;
    }

    private static Case toCase(String[] c, Row row) {
        boolean spec = switch (c[5]) {
            case "spec" -> true;
            case "volrep" -> false;
            default -> throw new IllegalStateException(CASES + ": whose words, spec or volrep? " + c[5]);
        };
        if (spec && !row.recoveryText().equals(c[6])) {
            throw new IllegalStateException(CASES + ": a 'spec' recovery must be the row's own text: " + c[6]);
        }
        boolean unforcedOnly = switch (c[4]) {
            case "any" -> false;
            case "unforced" -> true;
            default -> throw new IllegalStateException(CASES + ": which requests, any or unforced? " + c[4]);
        };
        return new Case(c[3], unforcedOnly, c[6], spec);
    }

    /** The tab-separated lines of a resource next to this class, each of {@code min} to {@code max} cells. */
    private static List<String[]> lines(String resource, int min, int max) {
        try (InputStream in = ErrorScheme.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            List<String[]> lines = new ArrayList<>();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] cells = line.split("\t", -1);
                if (cells.length < min || cells.length > max) {
                    throw new IllegalStateException("malformed line in " + resource + ": " + line);
                }
                lines.add(cells);
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

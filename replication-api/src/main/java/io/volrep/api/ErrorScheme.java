package io.volrep.api;

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
 * <pre>{@code
 * ErrorScheme scheme = ErrorScheme.spec();
 * scheme.find(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION)
 *       .map(ErrorScheme.Row::recoveryText)
 *       .ifPresent(System.out::println);
 * }</pre>
 */
public final class ErrorScheme {

    /** Transport codes that appear in no table but are retried with back-off (every method is idempotent). */
    public static final Set<StatusCode> TRANSPORT_BACKOFF_CODES = Collections.unmodifiableSet(
            EnumSet.of(StatusCode.UNAVAILABLE, StatusCode.DEADLINE_EXCEEDED, StatusCode.RESOURCE_EXHAUSTED));

    private static final ErrorScheme SPEC = new ErrorScheme(load(SpecDialect.CURRENT.errorTable()));
    private static final Map<SpecDialect, ErrorScheme> BY_DIALECT = new ConcurrentHashMap<>();

    /**
     * One row of a spec table.
     *
     * @param rpc the RPC whose table holds the row
     * @param condition the spec's condition, e.g. "Replication Source is not replicated"
     * @param code the gRPC code
     * @param description the spec's description of the condition
     * @param recoveryText the spec's recovery behaviour, verbatim
     * @param recovery the recovery class
     */
    public record Row(Rpc rpc, String condition, StatusCode code, String description, String recoveryText,
                      Recovery recovery) {
        public Row {
            Arguments.requireNonNull("rpc", rpc, "condition", condition, "code", code, "description", description,
                    "recoveryText", recoveryText, "recovery", recovery);
        }

        /** The row's name as checks and reports use it: {@code "PromoteVolume: Call not implemented -> 12 UNIMPLEMENTED"}. */
        public String displayName() {
            return rpc.methodName() + ": " + condition + " -> " + code.display();
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

    /** The tables of the current replication spec (seed 001) and the NodeHealer spec (seed 002). */
    public static ErrorScheme spec() {
        return SPEC;
    }

    /**
     * The tables of a spec revision: {@link SpecDialect#CURRENT} and {@link SpecDialect#UPSTREAM_2026} are
     * {@link #spec()}; the legacy revisions have their own replication tables (v0.1.0 has five RPCs and speaks of
     * volumes) and share the NodeHealer table.
     */
    public static ErrorScheme forDialect(SpecDialect dialect) {
        return dialect.errorTable().equals(SpecDialect.CURRENT.errorTable()) ? SPEC
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

    /** The row of {@code rpc}'s table with {@code code}, if the table has one. */
    public Optional<Row> find(Rpc rpc, StatusCode code) {
        for (Row row : rows(rpc)) {
            if (row.code() == code) {
                return Optional.of(row);
            }
        }
        return Optional.empty();
    }

    /** True when the spec's table for {@code rpc} lists {@code code}. */
    public boolean lists(Rpc rpc, StatusCode code) {
        return find(rpc, code).isPresent();
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

    /** The spec's recovery text for the code, or a generic phrase for codes outside the table. */
    public String recoveryText(Rpc rpc, StatusCode code) {
        return find(rpc, code).map(Row::recoveryText).orElseGet(() -> recovery(rpc, code).advice());
    }

    /** The table as Markdown, exactly as {@code docs/recovery-table.md} holds it. */
    public String toMarkdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Recovery table\n\n")
          .append("<!-- Generated from io.volrep.api.ErrorScheme (replication-api). Do not edit: a test fails when\n")
          .append("     this file and the table differ. Regenerate with\n")
          .append("     ./mvnw -pl replication-api test -Dtest=RecoveryTableDocTest -Dvolrep.regenerateDocs=true -->\n\n")
          .append("Each row is a row of the spec's error tables (").append(rows.size()).append(" rows). The `Recovery`\n")
          .append("class decides what volrep's client does by default; the testkit expects exactly these codes.\n\n")
          .append("| Recovery | volrep client default |\n|---|---|\n")
          .append("| `FIX_REQUEST` | never retried; most are caught before sending |\n")
          .append("| `VERIFY_THEN_BACKOFF` | retried with back-off only when the `SourceVerifier` approves; else surfaced |\n")
          .append("| `ENSURE_PRECONDITION` | not retried; the exception names the RPC's precondition |\n")
          .append("| `BACKOFF` | retried with exponential back-off and full jitter |\n")
          .append("| `NEVER` | never retried |\n")
          .append("| `RENEW_SECRETS` | retried once after `SecretsProvider.renew()` gives new secrets; else surfaced |\n")
          .append("| `INSPECT_LOGS` | not retried |\n\n")
          .append("Transport codes in no table (");
        md.append(String.join(", ", TRANSPORT_BACKOFF_CODES.stream().map(StatusCode::display).toList()));
        md.append(") are classed `BACKOFF`: the spec says every method is idempotent.\n");
        md.append("\nThe Identity service (")
          .append(String.join(", ", Arrays.stream(Rpc.values()).filter(Rpc::isIdentity).map(Rpc::methodName).toList()))
          .append(") has no table: its transport codes are `BACKOFF` as everywhere, ")
          .append(StatusCode.UNIMPLEMENTED.display()).append(" (no Identity service) is `")
          .append(identityRecovery(StatusCode.UNIMPLEMENTED)).append("`, and every other code is `")
          .append(identityRecovery(StatusCode.ABORTED))
          .append("`: its calls concern no source and send no secrets.\n");
        for (Rpc rpc : byRpc.keySet()) {
            md.append("\n## ").append(rpc.methodName()).append("\n\n")
              .append("| Condition | gRPC code | Recovery | Spec's recovery behaviour |\n|---|---|---|---|\n");
            for (Row row : rows(rpc)) {
                md.append("| ").append(cell(row.condition())).append(" | ").append(row.code().display())
                  .append(" | `").append(row.recovery()).append("` | ").append(cell(row.recoveryText())).append(" |\n");
            }
        }
        return md.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    /** A legacy revision's replication tables, plus the NodeHealer table, which no revision changes. */
    private static ErrorScheme legacy(String resource) {
        List<Row> rows = new ArrayList<>(load(resource));
        rows.addAll(SPEC.rows(Rpc.NODE_HEALER));
        return new ErrorScheme(rows);
    }

    private static List<Row> load(String resource) {
        try (InputStream in = ErrorScheme.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            List<Row> rows = new ArrayList<>();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] cells = line.split("\t", -1);
                if (cells.length != 5) {
                    throw new IllegalStateException("malformed error-scheme row: " + line);
                }
                Rpc rpc = Rpc.fromMethodName(cells[0])
                        .orElseThrow(() -> new IllegalStateException("unknown RPC in error scheme: " + cells[0]));
                StatusCode code = StatusCode.valueOf(cells[2].substring(cells[2].indexOf(' ') + 1));
                rows.add(new Row(rpc, cells[1], code, cells[3], cells[4], Recovery.forCode(code)));
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

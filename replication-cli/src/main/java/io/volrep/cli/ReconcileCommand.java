package io.volrep.cli;

import io.volrep.api.internal.SafeText;
import io.volrep.client.ReplicationClient;
import io.volrep.client.reconcile.Condition;
import io.volrep.client.reconcile.DesiredState;
import io.volrep.client.reconcile.ReconcileOptions;
import io.volrep.client.reconcile.ReconcileResult;
import io.volrep.client.reconcile.Reconciler;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code volrep reconcile}: drive one source to a desired state ({@link io.volrep.client.reconcile.Reconciler}) and
 * print the state reached, the conditions and the last sync figures. Exit 0 when the state was reached, 1 otherwise.
 *
 * <pre>
 * volrep reconcile --endpoint unix:///csi/csi-addons.sock --volume pvc-1 --state primary
 * </pre>
 */
@Command(
        name = "reconcile",
        mixinStandardHelpOptions = true,
        description = "Drive a source to a desired state (primary, secondary, resync, disabled) from any state,"
                + " and report the conditions reached. Safe to repeat.")
public final class ReconcileCommand extends SourceCommand {

    @Option(
            names = "--state",
            required = true,
            paramLabel = "primary|secondary|resync|disabled",
            converter = StateConverter.class,
            description = "The desired state.")
    DesiredState state;

    @Option(
            names = "--allow-force",
            description =
                    "Send PromoteVolume again with force when the plugin refuses it"
                            + " (9 FAILED_PRECONDITION). Force can leave two primaries: use it only when the peer is known down.")
    boolean allowForce;

    @Option(
            names = "--resync-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "PT5M",
            description = "How long a resync may take to become ready (default: 5m).")
    Duration resyncTimeout;

    @Option(
            names = {"--parameter", "--param"},
            paramLabel = "KEY=VALUE",
            description = "A parameter of EnableVolumeReplication; repeatable.")
    Map<String, String> parameters = new LinkedHashMap<>();

    @Override
    public Integer call() {
        PrintWriter out = out();
        PrintWriter err = err();
        ReconcileOptions options = ReconcileOptions.builder()
                .allowForcePromote(allowForce)
                .resyncTimeout(resyncTimeout)
                .parameters(parameters)
                .build();
        ReconcileResult r;
        try (Progress p = client.progress(err, Progress.describe("reconcile", source.describe()));
                ReplicationClient c = client.client(err, p)) {
            r = new Reconciler(c.source(source.source()), options).reconcile(state);
        }
        print(out, r);
        if (r.done()) {
            return 0;
        }
        err.println("error: " + r.whyNot().orElse("desired state not reached"));
        err.flush();
        return CallCommand.EXIT_CALL_FAILED;
    }

    private static void print(PrintWriter out, ReconcileResult r) {
        out.println("source:     " + SafeText.escape(r.source().toString()));
        out.println("desired:    " + lower(r.desired()));
        out.println("reached:    " + r.reached().map(ReconcileCommand::lower).orElse("unknown")
                + (r.forced() ? " (promoted with force)" : ""));
        for (Condition c : r.conditions()) {
            out.printf("%-11s %s (%s)%n", title(c.type()) + ":", title(c.status()), c.reason());
        }
        r.lastSync().ifPresent(info -> out.println("last sync:  " + SyncText.summary(info)));
        out.println("calls:      " + String.join(", ", r.calls()));
        r.whyNot().ifPresent(w -> out.println("why not:    " + w));
        out.flush();
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    /** {@code COMPLETED} -> {@code Completed}, as the reference orchestrator spells its conditions. */
    static String title(Enum<?> e) {
        String n = e.name();
        return n.charAt(0) + n.substring(1).toLowerCase(Locale.ROOT);
    }

    /** {@code primary}, {@code secondary}, {@code resync}, {@code disabled}, in any case. */
    static final class StateConverter implements CommandLine.ITypeConverter<DesiredState> {
        @Override
        public DesiredState convert(String value) {
            try {
                return DesiredState.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        "not a state: \"" + SafeText.escape(value) + "\" (use primary, secondary, resync or disabled)");
            }
        }
    }
}

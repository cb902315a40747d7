package io.volrep.cli;

import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.SafeText;
import io.volrep.client.ReplicationClient;
import io.volrep.client.SourceClient;
import java.io.PrintWriter;
import java.util.function.BiFunction;
import picocli.CommandLine.Option;

/**
 * The shared shape of {@code volrep enable|disable|promote|demote|resync|info}: build a client from
 * {@link ClientOptions}, send one typed call, print the result. Exit 0 on success; {@value #EXIT_CALL_FAILED}
 * when the call failed, printing the code and the spec's recovery text.
 */
abstract class CallCommand extends SourceCommand {
    /** The exit code of a call that failed (the plugin's answer or a request rejected before sending). */
    static final int EXIT_CALL_FAILED = 1;

    @Option(names = "--replication-id", paramLabel = "ID", description = "The (alpha) replication_id.")
    String replicationId;

    /** Shows a wait that lasts on stderr; set while {@link #invoke} runs. */
    Progress progress;

    /** Sends the call; returns what to print on success. */
    abstract String invoke(SourceClient source);

    @Override
    public Integer call() {
        return run(out(), err(), client, Progress.describe(spec.qualifiedName(), source.describe()), (c, p) -> {
            ReplicationSource selected = source.source(); // an empty id fails here, before any call
            progress = p;
            return invoke(c.source(selected));
        });
    }

    /**
     * What every typed call command does: a client from {@code options}, {@code invoke} with its waits shown on
     * {@code err} as {@code what}, the result on {@code out}; exit 0, or {@value #EXIT_CALL_FAILED} with the failure
     * printed ({@link #printFailure}).
     */
    static int run(
            PrintWriter out,
            PrintWriter err,
            ClientOptions options,
            String what,
            BiFunction<ReplicationClient, Progress, String> invoke) {
        try (Progress p = options.progress(err, what);
                ReplicationClient c = options.client(err, p)) {
            String result = invoke.apply(c, p);
            p.close(); // ends a live line before the result
            if (!result.isEmpty()) {
                out.println(result);
            }
            out.flush();
            return 0;
        } catch (ReplicationException e) {
            return printFailure(err, e, options);
        }
    }

    /**
     * Prints a failed call: the message, why the plugin cannot be reached when it cannot, the code with the RPC
     * and attempts, and the recovery text of the spec revision the plugin speaks. Returns
     * {@value #EXIT_CALL_FAILED}.
     */
    static int printFailure(PrintWriter err, ReplicationException e, ClientOptions options) {
        SpecDialect dialect = options.dialect;
        // The plugin's description is in the message: escaped, like every plugin-controlled text the CLI prints.
        err.println("error: " + SafeText.escape(e.getMessage()));
        explainUnreachable(err, e, options.target.endpoint);
        err.println("code: " + e.code().display()
                + (e.rpc() == null ? "" : " from " + e.rpc().methodName())
                + " after " + e.attempts() + " attempt(s)");
        if (e.attempts() == 0 && e.code() == StatusCode.INVALID_ARGUMENT) {
            // Refused before sending: the table's text ("adding the missing required field") may not fit.
            err.println("recovery: fix the request as the error says; nothing was sent to the plugin");
        } else {
            // The revision's table and what the request asked (force) decide which row's text fits the answer.
            String recoveryText = e.rpc() == null
                    ? e.recoveryText()
                    : e.inRevision(dialect.errorScheme()).recoveryText();
            err.println("recovery (" + e.recovery() + "): " + recoveryText);
        }
        err.flush();
        return EXIT_CALL_FAILED;
    }

    /** After a call that found nobody to answer: which endpoint, and why (no such socket file, refused, ...). */
    static void explainUnreachable(PrintWriter err, ReplicationException e, String endpoint) {
        if (e.code() == StatusCode.UNAVAILABLE || e.code() == StatusCode.DEADLINE_EXCEEDED) {
            Endpoint.whyUnreachable(endpoint)
                    .ifPresent(why -> err.println("unreachable: the plugin at " + endpoint + ": " + why));
        }
    }
}

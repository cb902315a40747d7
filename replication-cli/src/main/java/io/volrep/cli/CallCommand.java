package io.volrep.cli;

import io.volrep.api.ReplicationException;
import io.volrep.api.SpecDialect;
import io.volrep.client.ReplicationClient;
import io.volrep.client.SourceClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The shared shape of {@code volrep enable|disable|promote|demote|resync|info}: build a client from
 * {@link ClientOptions}, send one typed call, print the result. Exit 0 on success; {@value #EXIT_CALL_FAILED}
 * when the call failed, printing the code and the spec's recovery text.
 */
abstract class CallCommand implements Callable<Integer> {
    /** The exit code of a call that failed (the plugin's answer or a request rejected before sending). */
    static final int EXIT_CALL_FAILED = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ClientOptions client;

    @ArgGroup(exclusive = true, multiplicity = "1")
    SourceSelection source;

    @Option(names = "--replication-id", paramLabel = "ID", description = "The (alpha) replication_id.")
    String replicationId;

    /** Sends the call; returns what to print on success. */
    abstract String invoke(SourceClient source);

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (ReplicationClient c = client.client(err)) {
            String result = invoke(c.source(source.source()));
            out.println(result);
            out.flush();
            return 0;
        } catch (ReplicationException e) {
            return printFailure(err, e, client.dialect);
        }
    }

    /**
     * Prints a failed call: the message, the code with the RPC and attempts, and the recovery text of the spec
     * revision the plugin speaks. Returns {@value #EXIT_CALL_FAILED}.
     */
    static int printFailure(PrintWriter err, ReplicationException e, SpecDialect dialect) {
        err.println("error: " + e.getMessage());
        err.println("code: " + e.code().display()
                + (e.rpc() == null ? "" : " from " + e.rpc().methodName())
                + " after " + e.attempts() + " attempt(s)");
        String recoveryText = e.rpc() == null ? e.recoveryText()
                : dialect.errorScheme().recoveryText(e.rpc(), e.code());
        err.println("recovery (" + e.recovery() + "): " + recoveryText);
        err.flush();
        return EXIT_CALL_FAILED;
    }
}

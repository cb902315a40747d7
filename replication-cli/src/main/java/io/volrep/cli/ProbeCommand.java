package io.volrep.cli;

import io.volrep.api.ReplicationException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.internal.SafeText;
import io.volrep.client.PluginCapabilities;
import io.volrep.client.PluginIdentity;
import io.volrep.client.ProbeResult;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code volrep probe}: the plugin's CSI-Addons Identity (name, version, capabilities, readiness). Exit 0 when
 * the plugin answers and is ready; {@value CallCommand#EXIT_CALL_FAILED} otherwise, also when it serves no
 * Identity service.
 */
@Command(
        name = "probe",
        mixinStandardHelpOptions = true,
        description = "Show a plugin's identity, capabilities and readiness (CSI-Addons identity.Identity).")
public final class ProbeCommand extends Subcommand {

    @Mixin
    TargetOption target;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "10s",
            description = "Budget of each Identity call, a wait for a plugin that is not up yet and retries included:"
                    + " 30s, 2m or PT30S (default: ${DEFAULT-VALUE}, because a probe is a readiness check: a plugin"
                    + " that cannot say who it is within it is not ready).")
    Duration timeout;

    @Option(
            names = {"-v", "--verbose"},
            description = "Print each call on stderr as it is attempted: its code and the back-off chosen.")
    boolean verbose;

    @Override
    public Integer call() {
        PrintWriter out = out();
        PrintWriter err = err();
        // The client retries Identity calls like any other; --timeout bounds each call as a whole.
        RetryPolicy policy = RetryPolicy.spec().toBuilder()
                .perAttemptTimeout(timeout)
                .totalTimeout(timeout)
                .build();
        ReplicationClient.Builder builder =
                ReplicationClient.builder().target(target.endpoint).retry(policy);
        if (verbose) {
            builder.listener(Progress.printingAttempts(err, ""));
        }
        try (ReplicationClient c = builder.build()) {
            PluginIdentity identity = c.identity();
            PluginCapabilities caps = c.capabilities();
            ProbeResult probe = c.probe();
            List<String> capabilities = new ArrayList<>();
            caps.services().forEach(s -> capabilities.add(s.name()));
            if (caps.volumeReplication()) {
                capabilities.add("VOLUME_REPLICATION");
            }
            capabilities.addAll(caps.others());
            // Everything the plugin names itself is escaped (SafeText), as destination and info print ids.
            out.println("name:         " + SafeText.escape(identity.name()));
            out.println("version:      "
                    + (identity.vendorVersion().isEmpty()
                            ? "(not reported)"
                            : SafeText.escape(identity.vendorVersion())));
            identity.manifest()
                    .forEach((k, v) -> out.println("manifest:     " + SafeText.escape(k) + "=" + SafeText.escape(v)));
            out.println("capabilities: "
                    + (capabilities.isEmpty() ? "(none)" : SafeText.escape(String.join(", ", capabilities))));
            out.println(
                    "ready:        " + probe.ready() + (probe.reported() ? "" : " (not reported; ready by default)"));
            out.flush();
            return probe.ready() ? 0 : CallCommand.EXIT_CALL_FAILED;
        } catch (UnimplementedException e) {
            err.println("error: " + SafeText.escape(e.getMessage()));
            err.println("the plugin at " + target.endpoint + " may still serve replication: try volrep info or a call"
                    + " with the right --dialect (see docs/compatibility.md)");
            err.flush();
            return CallCommand.EXIT_CALL_FAILED;
        } catch (ReplicationException e) {
            err.println("error: " + SafeText.escape(e.getMessage()));
            CallCommand.explainUnreachable(err, e, target.endpoint);
            err.println("code: " + e.code().display());
            err.flush();
            return CallCommand.EXIT_CALL_FAILED;
        }
    }
}

package io.volrep.cli;

import io.volrep.api.HealReport;
import io.volrep.api.ReplicationException;
import io.volrep.api.VolumeCapability;
import io.volrep.api.VolumeCapability.AccessMode;
import io.volrep.api.internal.SafeText;
import io.volrep.client.HealCall;
import io.volrep.client.ReplicationClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code volrep heal}: NodeHealer on a node plugin. Prints {@code healthy} or {@code abnormal: <message>}; exit 0
 * healthy, {@value #EXIT_ABNORMAL} abnormal, {@value CallCommand#EXIT_CALL_FAILED} when the call failed.
 */
@Command(
        name = "heal",
        mixinStandardHelpOptions = true,
        description = "Check (and let the node plugin heal) a staged or published volume (NodeHealer)."
                + " Prints 'healthy' (exit 0) or 'abnormal: <message>' (exit 3).")
public final class HealCommand extends Subcommand {
    /** The exit code of a volume the plugin reports abnormal. */
    static final int EXIT_ABNORMAL = 3;

    @Mixin
    ClientOptions client;

    @Option(names = "--volume", paramLabel = "ID", required = true, description = "The volume_id.")
    String volume;

    @Option(
            names = "--path",
            paramLabel = "PATH",
            required = true,
            description = "The volume_path where the volume is available.")
    Path path;

    @Option(
            names = "--staging-path",
            paramLabel = "PATH",
            description = "The staging_target_path (absolute), for plugins that stage volumes.")
    Path stagingPath;

    @ArgGroup(exclusive = true)
    AccessType accessType;

    @Option(
            names = "--access-mode",
            paramLabel = "MODE",
            defaultValue = "SINGLE_NODE_WRITER",
            description = "The capability's access mode, one of ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE});"
                    + " used with --block or --mount.")
    AccessMode accessMode;

    @Option(names = "--context", paramLabel = "KEY=VALUE", description = "A volume_context entry; repeatable.")
    Map<String, String> context = new LinkedHashMap<>();

    /** {@code --block} or {@code --mount FSTYPE}: the volume_capability; none when neither is given. */
    static final class AccessType {
        @Option(names = "--block", required = true, description = "The volume is used as a raw block device.")
        boolean block;

        @Option(
                names = "--mount",
                paramLabel = "FSTYPE",
                required = true,
                description = "The volume is mounted with this file system type.")
        String mount;
    }

    @Override
    public Integer call() {
        PrintWriter out = out();
        PrintWriter err = err();
        try (Progress progress = client.progress(err, Progress.describe("volrep heal", "volume " + volume));
                ReplicationClient c = client.client(err, progress)) {
            HealCall call = c.node().heal(volume, path).context(context);
            if (stagingPath != null) {
                call.stagingPath(stagingPath);
            }
            if (accessType != null) {
                call.capability(
                        accessType.block
                                ? VolumeCapability.block(accessMode)
                                : VolumeCapability.mount(accessType.mount, accessMode));
            }
            HealReport report = call.call();
            progress.close(); // ends a live line before the result
            out.println(report.abnormal() ? "abnormal: " + SafeText.escape(report.message()) : "healthy");
            out.flush();
            return report.abnormal() ? EXIT_ABNORMAL : 0;
        } catch (ReplicationException e) {
            return CallCommand.printFailure(err, e, client);
        }
    }
}

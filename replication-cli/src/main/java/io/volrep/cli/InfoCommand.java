package io.volrep.cli;

import io.volrep.api.ReplicationInfo;
import io.volrep.api.internal.SafeText;
import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;

/** {@code volrep info}: GetVolumeReplicationInfo, printed as ISO-8601 time, duration, bytes and health status. */
@Command(
        name = "info",
        mixinStandardHelpOptions = true,
        description = "Show when the last sync happened, how long it took, how many bytes it moved and the"
                + " replication's health: HEALTHY, DEGRADED, ERROR or UNKNOWN (GetVolumeReplicationInfo).")
public final class InfoCommand extends CallCommand {

    @Override
    String invoke(SourceClient source) {
        ReplicationInfo info = source.infoCall().replicationId(replicationId).call();
        return "source:             " + source.source() + System.lineSeparator()
                + "last sync time:     " + SyncText.time(info) + System.lineSeparator()
                + "last sync duration: " + SyncText.duration(info.lastSyncDuration()) + System.lineSeparator()
                + "last sync bytes:    " + SyncText.bytes(info.lastSyncBytes()) + System.lineSeparator()
                + "status:             " + info.status()
                // The plugin's text, escaped: it must not write control sequences to the terminal.
                + (info.statusMessage().isEmpty()
                        ? ""
                        : System.lineSeparator() + "status message:     " + SafeText.escape(info.statusMessage()));
    }
}

package io.volrep.cli;

import io.volrep.api.ReplicationInfo;
import io.volrep.client.SourceClient;
import java.time.format.DateTimeFormatter;
import picocli.CommandLine.Command;

/** {@code volrep info}: GetVolumeReplicationInfo, printed as ISO-8601 time, duration and bytes. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Show when the last sync happened, how long it took and how many bytes it moved"
                + " (GetVolumeReplicationInfo).")
public final class InfoCommand extends CallCommand {

    @Override
    String invoke(SourceClient source) {
        ReplicationInfo info = source.infoCall().replicationId(replicationId).call();
        return "source:             " + source.source() + System.lineSeparator()
                + "last sync time:     " + DateTimeFormatter.ISO_INSTANT.format(info.lastSyncTime())
                + System.lineSeparator()
                + "last sync duration: " + info.lastSyncDuration().map(Object::toString).orElse("not reported")
                + System.lineSeparator()
                + "last sync bytes:    " + (info.lastSyncBytes().isPresent()
                        ? String.valueOf(info.lastSyncBytes().getAsLong()) : "not reported");
    }
}

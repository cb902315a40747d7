package io.volrep.cli;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.internal.SafeText;
import io.volrep.client.SourceClient;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;

/**
 * {@code volrep destination}: GetReplicationDestinationInfo (upstream 2026), the source's destination on the other
 * site: a volume id, or a group id and one {@code SOURCE -> DESTINATION} line per member.
 *
 * <pre>
 * volrep destination --endpoint unix:///csi/csi-addons.sock --volume-group grp-0 --secret user=admin
 * </pre>
 */
@Command(
        name = "destination",
        mixinStandardHelpOptions = true,
        description = "Show the source's destination on the other site: the destination volume id, or the"
                + " destination group id and one 'SOURCE -> DESTINATION' line per member"
                + " (GetReplicationDestinationInfo, upstream 2026).")
public final class DestinationCommand extends CallCommand {

    @Override
    String invoke(SourceClient source) {
        ReplicationDestination d = source.destination();
        StringBuilder out = new StringBuilder("destination: ").append(SafeText.escape(d.id()));
        if (d instanceof ReplicationDestination.VolumeGroup group) {
            // Sorted, so that the same answer prints the same lines; the plugin's ids are escaped.
            for (Map.Entry<String, String> member : new TreeMap<>(group.volumeIds()).entrySet()) {
                out.append(System.lineSeparator())
                        .append(SafeText.escape(member.getKey()))
                        .append(" -> ")
                        .append(SafeText.escape(member.getValue()));
            }
        }
        return out.toString();
    }
}

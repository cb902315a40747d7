package io.volrep.cli;

import io.volrep.api.ReplicationSource;
import picocli.CommandLine.Option;

/** Exactly one of {@code --volume}, {@code --volume-group}, {@code --volume-snapshot}. */
public final class SourceSelection {
    @Option(names = "--volume", paramLabel = "ID", required = true, description = "A volume.")
    String volume;

    @Option(names = "--volume-group", paramLabel = "ID", required = true, description = "A volume group.")
    String volumeGroup;

    @Option(names = "--volume-snapshot", paramLabel = "ID", required = true, description = "A volume snapshot.")
    String volumeSnapshot;

    /** The selected source as {@link ReplicationSource#toString()} reads, e.g. {@code volume pvc-1}, even invalid. */
    String describe() {
        return volume != null
                ? "volume " + volume
                : volumeGroup != null ? "volumegroup " + volumeGroup : "volumesnapshot " + volumeSnapshot;
    }

    /** The selected source; an empty or oversize id fails with InvalidArgumentException before any call. */
    ReplicationSource source() {
        if (volume != null) {
            return ReplicationSource.volume(volume);
        }
        if (volumeGroup != null) {
            return ReplicationSource.volumeGroup(volumeGroup);
        }
        return ReplicationSource.volumeSnapshot(volumeSnapshot);
    }
}

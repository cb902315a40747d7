package io.volrep.cli;

import io.volrep.client.ResyncCall;
import io.volrep.client.ResyncStatus;
import io.volrep.client.SourceClient;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code volrep resync}: ResyncVolume once, or until ready with {@code --await-ready}. */
@Command(
        name = "resync",
        mixinStandardHelpOptions = true,
        description = "Resync a demoted source (ResyncVolume); with --await-ready, repeat until it is ready.")
public final class ResyncCommand extends ForceableCallCommand {
    @Option(
            names = "--await-ready",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Poll ResyncVolume with capped back-off until ready, at most this long: 30s, 5m or PT5M."
                    + " The wait shows on stderr (elapsed, last answer, next poll).")
    Duration awaitReady;

    @Override
    String invoke(SourceClient source) {
        ResyncCall call = source.resync()
                .parameters(parameters)
                .replicationId(replicationId)
                .force(force)
                .onPoll(progress);
        ResyncStatus status = awaitReady == null ? call.call() : call.awaitReadyBlocking(awaitReady);
        return "ResyncVolume " + source.source() + ": ready=" + status.ready();
    }
}

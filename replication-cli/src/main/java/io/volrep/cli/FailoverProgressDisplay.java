package io.volrep.cli;

import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.SafeText;
import io.volrep.client.reconcile.FailoverProgress;
import io.volrep.client.reconcile.FailoverStep;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The live progress of {@code volrep failover} on stderr: one line per source and a total line. On a terminal the
 * block is redrawn in place; elsewhere (a log, a pipe) each change is printed once, as a plain line.
 */
final class FailoverProgressDisplay implements Consumer<FailoverProgress> {
    private final PrintWriter err;
    private final boolean live;
    private final SiteNames sites;
    private final Map<ReplicationSource, String> lines = new LinkedHashMap<>();
    private final Map<ReplicationSource, FailoverStep> steps = new LinkedHashMap<>();
    private int drawn;

    FailoverProgressDisplay(PrintWriter err, boolean live, SiteNames sites) {
        this.err = err;
        this.live = live;
        this.sites = sites;
    }

    @Override
    public synchronized void accept(FailoverProgress p) {
        String destination = p.destination().map(d -> d.source().id()).orElse("?");
        String line = SafeText.escape(p.source().toString()) + " -> " + SafeText.escape(destination) + ": "
                + sites.step(p.step())
                + (p.detail().isEmpty() ? "" : " (" + p.detail() + ")");
        lines.put(p.source(), line);
        steps.put(p.source(), p.step());
        if (live) {
            redraw();
        } else if (p.step() != FailoverStep.PENDING) {
            err.println(line);
            if (p.step().terminal()) {
                err.println(total());
            }
        }
        err.flush();
    }

    private void redraw() {
        if (drawn > 0) {
            err.print("\033[" + drawn + "F"); // to the start of the block drawn last time
        }
        for (String line : lines.values()) {
            err.print("\033[2K" + line + "\n");
        }
        err.print("\033[2K" + total() + "\n");
        drawn = lines.size() + 1;
    }

    private String total() {
        long primary = count(FailoverStep.PRIMARY_ON_B);
        long refused = count(FailoverStep.REFUSED);
        long failed = count(FailoverStep.FAILED);
        long finished = steps.values().stream().filter(FailoverStep::terminal).count();
        return "total: " + primary + " of " + steps.size() + " primary on " + sites.to() + ", " + refused + " refused, "
                + failed
                + " failed, " + (steps.size() - finished) + " in progress";
    }

    private long count(FailoverStep step) {
        return steps.values().stream().filter(step::equals).count();
    }
}

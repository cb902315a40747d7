package io.volrep.cli;

import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.SafeText;
import io.volrep.client.reconcile.SourceFailover;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What {@code volrep failover} prints under a source that the run could not finish: where it stands ({@link
 * SourceFailover#state()}) and the command that finishes it, the same failover of that source alone, with the options
 * of this run (secret values never: {@code --secret KEY=...}).
 *
 * <pre>
 *   state: site-a demoted, site-b not primary: no site takes writes
 *   finish with: volrep failover --from unix:///tmp/dr/site-a.sock --to unix:///tmp/dr/site-b.sock --volume vol-0
 *   or go back: volrep promote --endpoint unix:///tmp/dr/site-a.sock --volume vol-0
 * </pre>
 */
final class FailoverFinish {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private final FailoverCommand run;
    private final SiteNames sites;

    FailoverFinish(FailoverCommand run, SiteNames sites) {
        this.run = run;
        this.sites = sites;
    }

    void print(PrintWriter out, SourceFailover s) {
        String same = String.join(" ", failover(s.source()));
        String from = sites.from();
        String to = sites.to();
        switch (s.state()) {
            case PRIMARY_ON_B -> {
                return;
            }
            case PROMOTED_NOT_VERIFIED -> {
                out.println("  state: " + to + " primary (promoted), no completed sync reported yet");
                out.println("  finish with: " + same);
            }
            case NO_PRIMARY -> {
                out.println("  state: " + from + " demoted, " + to + " not primary: no site takes writes");
                out.println("  finish with: " + same);
                out.println("  or go back: volrep promote --endpoint " + quote(run.from) + " " + flag(s.source()));
            }
            case PROMOTE_UNANSWERED -> {
                out.println("  state: " + from + " demoted, " + to + " did not answer its promote (it may or may not"
                        + " be primary)");
                out.println("  finish with: " + same);
            }
            case DEMOTE_UNANSWERED -> {
                out.println("  state: " + from + " did not answer its demote (it may still be primary, or be demoted);"
                        + " nothing promoted on " + to);
                out.println("  finish with: " + same + " (once " + from + " answers)");
                if (!run.forceIfUnreachable) {
                    out.println("  or, only if " + from + " is known down: " + same + " --force-if-unreachable");
                }
            }
            case UNCHANGED -> {
                out.println("  state: nothing changed on either site");
                out.println("  finish with: " + same + " (once the cause above is fixed)");
            }
        }
    }

    /** The same failover, of {@code source} alone. */
    private List<String> failover(ReplicationSource source) {
        List<String> cmd = new ArrayList<>(List.of("volrep", "failover", "--from", quote(run.from), "--to"));
        cmd.add(quote(run.to));
        cmd.add(flag(source));
        String destination = run.destinations.get(source.id());
        if (destination != null) {
            cmd.add("--destination " + quote(source.id() + "=" + destination));
        }
        if (run.assumeSameIds) {
            cmd.add("--assume-same-ids");
        }
        if (run.secretOptions.file != null) {
            cmd.add("--secrets-file " + quote(run.secretOptions.file.toString()));
        }
        run.secretOptions.inline.keySet().forEach(k -> cmd.add("--secret " + quote(k + "=...")));
        if (run.toSecretsFile != null) {
            cmd.add("--to-secrets-file " + quote(run.toSecretsFile.toString()));
        }
        run.toSecrets.keySet().forEach(k -> cmd.add("--to-secret " + quote(k + "=...")));
        if (run.forceIfUnreachable) {
            cmd.add("--force-if-unreachable");
        }
        if (run.dialect != SpecDialect.CURRENT) {
            cmd.add("--dialect " + run.dialect.cliName());
        }
        if (!run.timeout.equals(Duration.ofSeconds(30))) {
            cmd.add("--timeout " + duration(run.timeout));
        }
        if (!run.demotionWait.equals(Duration.ofMinutes(2))) {
            cmd.add("--demotion-wait " + duration(run.demotionWait));
        }
        return cmd;
    }

    private static String flag(ReplicationSource source) {
        return (source.kind() == ReplicationSource.Kind.VOLUME_GROUP ? "--volume-group " : "--volume ")
                + quote(source.id());
    }

    /** A word as a POSIX shell reads it back: plain, or in single quotes; control characters escaped. */
    static String quote(String word) {
        String safe = SafeText.escape(word);
        return PLAIN.matcher(safe).matches() ? safe : "'" + safe.replace("'", "'\\''") + "'";
    }

    /** A duration as {@code --timeout} reads it: {@code 2m}, {@code 30s}, {@code 500ms}. */
    static String duration(Duration d) {
        long millis = d.toMillis();
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}

package io.volrep.cli;

import io.volrep.api.internal.SafeText;
import io.volrep.client.reconcile.FailoverStep;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How {@code volrep failover} names its two sites: after the endpoints given, so that the report and the progress read
 * right in either direction (failing back from the lab's site-b to its site-a says "primary on site-a", not "primary on
 * b"). A unix socket is named after its file ({@code site-a.sock}: {@code site-a}), or after its directory when both
 * files have the same name ({@code /site-a/csi-addons.sock}); a TCP endpoint after its {@code host:port}. A name that
 * does not start with "site" gets it in front, a single letter in upper case ({@code a.sock}: {@code site A}).
 *
 * <pre>{@code
 * SiteNames.of("unix:///tmp/dr/site-b.sock", "unix:///tmp/dr/site-a.sock");   // site-b, site-a
 * }</pre>
 *
 * @param from the name of the site failed over from ({@code --from})
 * @param to   the name of the site failed over to ({@code --to})
 */
record SiteNames(String from, String to) {

    static SiteNames of(String fromEndpoint, String toEndpoint) {
        String fromTarget = target(fromEndpoint);
        String toTarget = target(toEndpoint);
        String from = name(fromTarget, false);
        String to = name(toTarget, false);
        if (from.equals(to)) {
            from = name(fromTarget, true);
            to = name(toTarget, true);
        }
        if (from.isEmpty() || to.isEmpty() || from.equals(to)) {
            return new SiteNames("site A", "site B");
        }
        return new SiteNames(label(from), label(to));
    }

    private static String target(String endpoint) {
        try {
            return Endpoint.target(endpoint);
        } catch (IllegalArgumentException e) {
            return endpoint;
        }
    }

    /** The socket file's name without {@code .sock} (its directory's with {@code directory}), or the authority. */
    private static String name(String target, boolean directory) {
        if (target.startsWith("unix:")) {
            Path socket;
            try {
                socket = Endpoint.unixPath(target);
            } catch (IllegalArgumentException e) {
                return "";
            }
            Path named = directory ? socket.getParent() : socket;
            if (named == null || named.getFileName() == null) {
                return "";
            }
            String file = named.getFileName().toString();
            return directory || !file.endsWith(".sock") ? file : file.substring(0, file.length() - ".sock".length());
        }
        String rest = target.replaceFirst("^(dns|inprocess):(//[^/]*/)?", "");
        return directory ? "" : rest;
    }

    private static String label(String name) {
        // One letter is a site's letter, as people write it: a.sock is site A.
        String safe = SafeText.escape(name.length() == 1 ? name.toUpperCase(Locale.ROOT) : name);
        return safe.toLowerCase(Locale.ROOT).startsWith("site") ? safe : "site " + safe;
    }

    /** A step as the progress and the report say it: {@code promoting on site-b}. */
    String step(FailoverStep step) {
        return switch (step) {
            case PENDING -> "pending";
            case RESOLVING -> "resolving";
            case CHECKING_B -> "checking " + to;
            case DEMOTING_ON_A -> "demoting on " + from;
            case PROMOTING_ON_B -> "promoting on " + to;
            case VERIFYING_ON_B -> "verifying on " + to;
            case PRIMARY_ON_B -> "primary on " + to;
            case REFUSED -> "refused";
            case FAILED -> "failed";
        };
    }
}

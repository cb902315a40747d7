package io.volrep.ceph;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A stand-in for the {@code rbd} command: a bash script answering scripted outputs, for tests of the driver's
 * mapping without a Ceph cluster (the real one is in replication-cli's Ceph integration tests). It drops the
 * connection and timeout options the driver adds, records each command as {@code local ARGS} or {@code peer ARGS}
 * (a command with {@code -m}, i.e. sent to the peer site) in {@code calls.log}, and answers the first rule whose
 * command is the recorded one or a prefix of it (followed by a space). A rule with several responses answers them in
 * turn and then repeats its last; a command without a rule exits 95.
 *
 * <pre>{@code
 * FakeRbd rbd = new FakeRbd(tmp).on("local info rbd/vol-0", FakeRbd.ok("{\"name\":\"vol-0\"}"));
 * Path executable = rbd.install();
 * }</pre>
 */
final class FakeRbd {
    /** One answer: exit code, stdout, stderr; or, with {@code sleepSeconds}, no answer for that long. */
    record Response(int exit, String stdout, String stderr, int sleepSeconds) {}

    private record Rule(String command, List<Response> responses) {}

    private final Path dir;
    private final List<Rule> rules = new ArrayList<>();

    FakeRbd(Path dir) {
        this.dir = dir;
    }

    static Response ok(String stdout) {
        return new Response(0, stdout, "", 0);
    }

    static Response fail(int exit, String stderr) {
        return new Response(exit, "", stderr, 0);
    }

    static Response hang(int seconds) {
        return new Response(0, "", "", seconds);
    }

    FakeRbd on(String command, Response... responses) {
        rules.add(new Rule(command, List.of(responses)));
        return this;
    }

    /** Writes the script and its answers; returns the executable. */
    Path install() {
        try {
            StringBuilder script = new StringBuilder("""
                    #!/usr/bin/env bash
                    site=local; args=()
                    while (($#)); do
                      case $1 in
                        -m) site=peer; shift 2 ;;
                        -c|--id|--keyfile|--client_mount_timeout|--rados_mon_op_timeout|--rados_osd_op_timeout) shift 2 ;;
                        *) args+=("$1"); shift ;;
                      esac
                    done
                    cmd="$site ${args[*]}"
                    D=%s
                    echo "$cmd" >>"$D/calls.log"
                    answer() { # RULE COUNT
                      local n; n=$(cat "$D/rule-$1.n" 2>/dev/null || echo 0)
                      (( n < $2 - 1 )) && echo $((n + 1)) >"$D/rule-$1.n"
                      local r="$D/rule-$1-$n"
                      # exec: the driver's deadline kills the one process (a killed grandchild can linger as a zombie)
                      [[ -f $r.sleep ]] && exec sleep "$(cat "$r.sleep")"
                      cat "$r.out"; cat "$r.err" >&2; exit "$(cat "$r.exit")"
                    }
                    """.formatted(quote(dir.toString())));
            for (int i = 0; i < rules.size(); i++) {
                Rule rule = rules.get(i);
                script.append("if [[ $cmd == ")
                        .append(quote(rule.command()))
                        .append(" || $cmd == ")
                        .append(quote(rule.command() + " "))
                        .append("* ]]; then answer ")
                        .append(i)
                        .append(' ')
                        .append(rule.responses().size())
                        .append("; fi\n");
                for (int n = 0; n < rule.responses().size(); n++) {
                    Response r = rule.responses().get(n);
                    String base = "rule-" + i + "-" + n;
                    Files.writeString(dir.resolve(base + ".out"), r.stdout());
                    Files.writeString(dir.resolve(base + ".err"), r.stderr());
                    Files.writeString(dir.resolve(base + ".exit"), Integer.toString(r.exit()));
                    if (r.sleepSeconds() > 0) {
                        Files.writeString(dir.resolve(base + ".sleep"), Integer.toString(r.sleepSeconds()));
                    }
                }
            }
            script.append("echo \"fake rbd: no rule for: $cmd\" >&2; exit 95\n");
            Path rbd = dir.resolve("rbd");
            Files.writeString(rbd, script);
            Files.setPosixFilePermissions(rbd, PosixFilePermissions.fromString("rwx------"));
            return rbd;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The commands run so far, as recorded ({@code local ARGS} / {@code peer ARGS}). */
    List<String> calls() {
        try {
            Path log = dir.resolve("calls.log");
            return Files.exists(log) ? Files.readAllLines(log) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}

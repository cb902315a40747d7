package io.volrep.it.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The call log a Node peer writes with {@code --calls-file} (see interop/lib/common.js): one entry per call
 * with its RPC, source, answered code, time and the secret keys it carried (never values).
 */
record CallsFile(List<Call> calls) {
    record Call(String rpc, String source, String code, long atMs, String secretKeys) {}

    private static final Pattern ENTRY = Pattern.compile("\\{\\s*\"rpc\": \"([^\"]+)\",\\s*\"source\": \"([^\"]*)\","
            + "\\s*\"code\": \"([^\"]+)\",\\s*\"atMs\": (\\d+),\\s*\"secretKeys\": \\[([^\\]]*)\\]");

    /** The calls recorded so far; none when the peer never wrote the file (no call reached it). */
    static CallsFile read(Path file) throws IOException {
        List<Call> calls = new ArrayList<>();
        if (Files.exists(file)) {
            Matcher m = ENTRY.matcher(Files.readString(file));
            while (m.find()) {
                calls.add(new Call(
                        m.group(1),
                        m.group(2),
                        m.group(3),
                        Long.parseLong(m.group(4)),
                        m.group(5).replaceAll("\\s", "")));
            }
        }
        return new CallsFile(calls);
    }

    List<Call> of(String rpc) {
        return calls.stream().filter(c -> c.rpc().equals(rpc)).toList();
    }
}

package io.volrep.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** A call command with {@code --param K=V} (every RPC but GetVolumeReplicationInfo). */
abstract class ParameterizedCallCommand extends CallCommand {
    @Option(names = "--param", paramLabel = "K=V", description = "A plugin-specific parameter; repeatable.")
    Map<String, String> parameters = new LinkedHashMap<>();
}

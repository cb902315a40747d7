package io.volrep.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** A call command with {@code --parameter K=V} (alias {@code --param}; every RPC but GetVolumeReplicationInfo). */
abstract class ParameterizedCallCommand extends CallCommand {
    @Option(names = {"--parameter", "--param"}, paramLabel = "K=V",
            description = "A plugin-specific parameter, e.g. mirroringMode=snapshot; repeatable.")
    Map<String, String> parameters = new LinkedHashMap<>();
}

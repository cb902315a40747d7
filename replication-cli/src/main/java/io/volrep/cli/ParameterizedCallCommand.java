package io.volrep.cli;

import io.volrep.client.ParameterizedCall;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** A call command with {@code --parameter KEY=VALUE} (alias {@code --param}; every RPC but GetVolumeReplicationInfo). */
abstract class ParameterizedCallCommand extends CallCommand {
    @Option(
            names = {"--parameter", "--param"},
            paramLabel = "KEY=VALUE",
            description = "A plugin-specific parameter, e.g. mirroringMode=snapshot; repeatable.")
    Map<String, String> parameters = new LinkedHashMap<>();

    /**
     * Sends {@code call}, one whose answer holds nothing but OK (enable, disable, promote, demote), with the
     * parameters and replication id given; returns what to print, e.g. {@code PromoteVolume volume pvc-1: OK}.
     */
    String callForOk(ParameterizedCall<?, ?> call) {
        call.parameters(parameters).replicationId(replicationId).call();
        return call.rpc().methodName() + " " + call.source() + ": OK";
    }
}

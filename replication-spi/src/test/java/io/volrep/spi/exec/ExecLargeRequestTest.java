package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.script;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request of any size the spec allows reaches an exec driver (issue 45, item 11): one that fits in an argument
 * ({@link ExecDriver#MAX_ARGUMENT_BYTES}, the kernel's limit per argument) is {@code argv[2]} as before, a larger one
 * is written to a file only the driver's user can read, named as {@code @PATH} in {@code argv[2]} and removed when the
 * call ends. Before the fix, a CreateVolumeGroup of 15,000 members failed with "Argument list too long".
 */
class ExecLargeRequestTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    /**
     * Records argv[2], the request it stands for (read from the file for {@code @PATH}) and the file's mode, then
     * answers a group whose id counts the members it read.
     */
    private ExecHarness serve() throws Exception {
        String init = "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\",\"capabilities\":"
                + "{\"create-group\":true,\"delete-group\":true}}'; exit 0; fi\n";
        String body = "req=$2\n"
                + "printf '%s' \"$req\" > " + dir.resolve("argument") + "\n"
                + "case \"$req\" in @*) f=${req#@}; stat -c %a \"$f\" > " + dir.resolve("mode")
                + "; req=$(cat \"$f\");;"
                + " esac\n"
                + "printf '%s' \"$req\" > " + dir.resolve("request") + "\n"
                + "n=$(printf '%s' \"$req\" | grep -o '\"vol-[0-9a-z]*\"' | wc -l)\n"
                + "printf '{\"status\":\"Success\",\"volumeGroup\":{\"volumeGroupId\":\"vg-%s\"}}' \"$n\"";
        return grpc.register(ExecHarness.inProcess(ExecDriver.builder()
                .executable(script(dir, "driver", init + body))
                .build()));
    }

    private static List<String> volumes(int n) {
        List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add("vol-" + i);
        }
        return ids;
    }

    @Test
    void aGroupOfFifteenThousandMembersReachesTheDriverThroughAFile() throws Exception {
        ExecHarness h = serve();
        List<String> ids = volumes(15_000);
        String expected = ExecRequests.groupRequest("big", null, ids, Map.of());
        assertThat(expected.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(ExecDriver.MAX_ARGUMENT_BYTES);

        var group = h.groups()
                .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("big")
                        .addAllVolumeIds(ids)
                        .build())
                .getVolumeGroup();

        assertThat(group.getVolumeGroupId()).isEqualTo("vg-15000");
        String argument = Files.readString(dir.resolve("argument"));
        assertThat(argument).startsWith("@");
        assertThat(Files.readString(dir.resolve("request"))).isEqualTo(expected);
        assertThat(Files.readString(dir.resolve("mode")).strip()).isEqualTo("600");
        assertThat(Path.of(argument.substring(1))).doesNotExist();
    }

    @Test
    void theLargestRequestThatFitsStaysInTheArgumentAndOneByteMoreGoesToAFile() throws Exception {
        ExecHarness h = serve();
        for (int extra : new int[] {0, 1}) {
            String name = "fit-" + extra;
            // Members until the request is just under the limit, then the last one padded to the exact size.
            List<String> ids = new ArrayList<>();
            int length = ExecRequests.groupRequest(name, null, ids, Map.of()).length();
            while (length < ExecDriver.MAX_ARGUMENT_BYTES - 60) {
                String id = "vol-" + ids.size();
                length += id.length() + (ids.isEmpty() ? 2 : 3); // quoted, and a comma before all but the first
                ids.add(id);
            }
            int pad = ExecDriver.MAX_ARGUMENT_BYTES
                    + extra
                    - ExecRequests.groupRequest(name, null, ids, Map.of()).length();
            ids.set(ids.size() - 1, ids.get(ids.size() - 1) + "z".repeat(pad));
            String expected = ExecRequests.groupRequest(name, null, ids, Map.of());
            assertThat(expected.getBytes(StandardCharsets.UTF_8).length)
                    .isEqualTo(ExecDriver.MAX_ARGUMENT_BYTES + extra);

            var group = h.groups()
                    .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                            .setName(name)
                            .addAllVolumeIds(ids)
                            .build())
                    .getVolumeGroup();

            assertThat(group.getVolumeGroupId()).isEqualTo("vg-" + ids.size());
            String argument = Files.readString(dir.resolve("argument"));
            if (extra == 0) {
                assertThat(argument).isEqualTo(expected);
            } else {
                assertThat(argument).startsWith("@");
            }
            assertThat(Files.readString(dir.resolve("request"))).isEqualTo(expected);
        }
    }
}

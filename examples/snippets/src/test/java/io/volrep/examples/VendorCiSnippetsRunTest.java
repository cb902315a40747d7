package io.volrep.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.client.ReplicationClient;
import io.volrep.client.SecretsProvider;
import io.volrep.client.SourceClient;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.FileTrees;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snippets of docs/vendor-ci.md run as written: {@code ConformanceRunner} against the reference plugin that
 * {@code volrep serve-reference --secret user=admin} serves over a unix socket (compliant, its JUnit XML where the
 * snippet says), and the fake plugin's test (inherited from {@link VendorCiExamples}, the docs' own method) with a
 * controller that enables, demotes and promotes {@code vol-0} through {@link ReplicationClient}.
 */
class VendorCiSnippetsRunTest extends VendorCiExamples {
    /** Where the runner snippet writes its JUnit XML ({@code .reportsDir(Path.of("target/conformance"))}). */
    private static final Path REPORTS = Path.of("target/conformance");

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @BeforeEach
    void controllerOnTheClient() {
        myController = endpoint -> {
            try (ReplicationClient client = ReplicationClient.builder()
                    .target(endpoint)
                    .secrets(SecretsProvider.of(Map.of("user", "admin")))
                    .build()) {
                SourceClient vol0 = client.volume("vol-0");
                vol0.enable().call();
                vol0.demote().call();
                vol0.promote().call();
            }
        };
    }

    @Test
    void theRunnerJudgesServeReferenceCompliantAndWritesItsReports(@TempDir Path dir) throws Exception {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(ReferencePlugin.DEFAULT_VOLUMES)
                .groups(ReferencePlugin.DEFAULT_GROUPS)
                .requiredSecret("user", "admin")
                .build();
        String endpoint = "unix://" + dir.resolve("ref.sock");
        grpc.register(ReferencePlugin.start(reference, endpoint));
        FileTrees.delete(REPORTS); // the snippet's directory: reports of an earlier build must not pass for this run's

        boolean ok = runner(ConformanceConfig.builder()
                .endpoint(endpoint)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .secrets(Map.of("user", "admin"))
                .build());

        assertThat(ok).isTrue();
        try (Stream<Path> reports = Files.list(REPORTS)) {
            assertThat(reports).anyMatch(p -> p.getFileName().toString().endsWith(".xml"));
        }
    }
}

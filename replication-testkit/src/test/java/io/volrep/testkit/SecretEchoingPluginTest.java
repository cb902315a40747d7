package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MapEntry;
import com.google.protobuf.Message;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.testkit.reference.ReferenceDriver;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * A plugin that answers every call with an error whose message echoes the request's secrets, wrapped in terminal
 * escapes, a BEL, CR/LF line forging and U+202E. The kit's outputs (the progress lines, each result's reason, the
 * statement, every JUnit XML file, and the failures a vendor's own Surefire run would report) hold neither a
 * configured secret value nor a raw control character.
 */
class SecretEchoingPluginTest {
    static final String PASSWORD = "Sup3r-s3cret-value";
    static final String TOKEN = "t0ken-0f-the-array";
    static final String HOSTILE = "\u001b[2J\u001b]0;owned\u0007\rforged\nFAIL forged line\u202e";

    @TempDir
    Path reports;

    static ConformanceConfig config() {
        return ConformanceConfig.builder()
                .driver(ReferenceDriver.builder()
                        .volumes(1)
                        .groups(1)
                        .requiredSecrets(Map.of("password", PASSWORD, "token", TOKEN))
                        .build())
                .interceptor(new EchoingSecrets())
                .volumes("vol-0")
                .volumeGroups("grp-0")
                .secrets(Map.of("password", PASSWORD, "token", TOKEN))
                .build();
    }

    static void clean(String what, String text) {
        assertThat(text).as(what).doesNotContain(PASSWORD, TOKEN, "\u001b", "\u0007", "\r", "\u202e");
        assertThat(text.lines()).as(what).noneMatch(l -> l.startsWith("FAIL forged line"));
        assertThat(text.chars().filter(c -> c != '\n' && Character.isISOControl(c)))
                .as(what)
                .isEmpty();
    }

    @Test
    void noSecretAndNoRawControlCharacterInAnyReport() throws Exception {
        StringWriter progress = new StringWriter();
        ComplianceReport report = ConformanceRunner.of(config())
                .progress(new PrintWriter(progress))
                .reportsDir(reports)
                .run();

        assertThat(report.failed()).isNotEmpty();
        // The plugin's words are there, masked and escaped.
        assertThat(progress.toString()).contains("password=***").contains("\\u001b[2J");
        clean("progress", progress.toString());
        clean("statement", report.statement());
        for (CheckResult r : report.results()) {
            clean(r.name(), r.reason());
        }
        List<Path> xml;
        try (Stream<Path> files = Files.list(reports)) {
            xml = files.toList();
        }
        assertThat(xml).isNotEmpty();
        for (Path file : xml) {
            clean(file.toString(), Files.readString(file));
        }
    }

    @Test
    void theFailuresAVendorsOwnRunnerReportsHoldNoSecretAndNoRawControlCharacter() {
        // What Surefire or Gradle would write: each failure's message, its causes and suppressed exceptions.
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        String key = ConfiguredConformanceSuite.register(config());
        try {
            LauncherFactory.create()
                    .execute(
                            LauncherDiscoveryRequestBuilder.request()
                                    .selectors(selectClass(ConfiguredConformanceSuite.class))
                                    .configurationParameter(ConfiguredConformanceSuite.CONFIG_PARAMETER, key)
                                    .build(),
                            new TestExecutionListener() {
                                @Override
                                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                                    result.getThrowable().ifPresent(failures::add);
                                }
                            });
        } finally {
            ConfiguredConformanceSuite.unregister(key);
        }
        assertThat(failures).isNotEmpty();
        for (Throwable failure : failures) {
            StringWriter trace = new StringWriter();
            failure.printStackTrace(new PrintWriter(trace));
            // A printed stack trace indents its frames with a TAB of its own.
            clean(
                    failure.toString(),
                    trace.toString().replace("\n\tat ", "\n  at ").replace("\n\t", "\n  "));
        }
    }

    /** Fails every call with the request's secrets in the message, and the hostile characters. */
    static final class EchoingSecrets implements ServerInterceptor {
        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(
                ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            call.request(1);
            return new ServerCall.Listener<>() {
                private String echoed = "";

                @Override
                public void onMessage(Q message) {
                    Message m = (Message) message;
                    FieldDescriptor secrets = m.getDescriptorForType().findFieldByName("secrets");
                    StringBuilder sb = new StringBuilder();
                    if (secrets != null) {
                        for (Object entry : (List<?>) m.getField(secrets)) {
                            MapEntry<?, ?> e = (MapEntry<?, ?>) entry;
                            sb.append(e.getKey())
                                    .append('=')
                                    .append(e.getValue())
                                    .append(' ');
                        }
                    }
                    echoed = sb.toString();
                }

                @Override
                public void onHalfClose() {
                    call.close(
                            Status.UNAUTHENTICATED.withDescription("login refused for " + echoed + HOSTILE),
                            new Metadata());
                }
            };
        }
    }
}

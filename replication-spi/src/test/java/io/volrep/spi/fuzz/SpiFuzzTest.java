package io.volrep.spi.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.volrep.api.CsiLimits;
import io.volrep.api.HealReport;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.SourceNotFoundException;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DemoteVolumeResponse;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.DisableVolumeReplicationResponse;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.PromoteVolumeResponse;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.testsupport.GrpcCleanup;
import io.volrep.testsupport.RawBytes;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fuzzes the SPI server with what a broken or hostile client could send, on each of the six
 * {@code replication.Controller} methods and {@code healer.HealerNode/NodeHealer}, through a raw {@code ClientCall} with a {@code byte[]} marshaller:
 * random bytes, valid requests with their bytes mutated (bit flips, truncation, insertion, deletion, duplicated
 * slices), and well-formed requests with random field values (ids, maps, unicode, sizes at and over the CSI
 * limits of 128 bytes per string and 4 KiB per map; for NodeHealer also paths, relative and long, volume
 * capabilities with unknown access modes, and volume contexts). The drivers never throw anything but the api's typed
 * exceptions, so:
 * <ul>
 *   <li>every call gets an answer, within a deadline;</li>
 *   <li>no answer is UNKNOWN (only a driver may cause one) nor INTERNAL; only OK, INVALID_ARGUMENT and the
 *       driver's NOT_FOUND / FAILED_PRECONDITION (and ABORTED, as calls overlap) appear;</li>
 *   <li>an OK answer parses as the method's response;</li>
 *   <li>the server still serves a valid call at the end, with nothing left in flight.</li>
 * </ul>
 * Seeded and bounded: {@code -Dvolrep.fuzz.iterations=N} (default {@value #DEFAULT_ITERATIONS}) and
 * {@code -Dvolrep.fuzz.seed=S}. A longer run:
 * <pre>{@code
 * ./mvnw -B -pl replication-spi test -Dtest=SpiFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dvolrep.fuzz.iterations=1000000 -Dvolrep.fuzz.seed=$RANDOM
 * }</pre>
 */
class SpiFuzzTest {
    static final int DEFAULT_ITERATIONS = 3_000;
    private static final int WINDOW = 16;
    private static final Set<Status.Code> ALLOWED = EnumSet.of(
            Status.Code.OK,
            Status.Code.INVALID_ARGUMENT,
            Status.Code.NOT_FOUND,
            Status.Code.FAILED_PRECONDITION,
            Status.Code.ABORTED);
    private static final List<Rpc> RPCS =
            Arrays.stream(Rpc.values()).filter(Rpc::isReplication).toList();
    /** What the fuzz loop sends: the replication methods and NodeHealer. */
    private static final List<Rpc> FUZZED =
            Stream.concat(RPCS.stream(), Stream.of(Rpc.NODE_HEALER)).toList();

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ReplicationServer server;
    private ManagedChannel channel;

    @BeforeEach
    void start() {
        server = grpc.register(ReplicationServer.builder()
                .driver(new TypedOnlyDriver())
                .healer(new TypedOnlyHealer())
                .listen("inprocess:" + InProcessServerBuilder.generateName())
                .build()
                .start());
        channel = grpc.register(InProcessChannelBuilder.forName(server.address().substring("inprocess:".length()))
                .build());
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyInputGetsASpecAnswerAndTheServerKeepsServing() throws Exception {
        int iterations = Integer.getInteger("volrep.fuzz.iterations", DEFAULT_ITERATIONS);
        long seed = Long.getLong("volrep.fuzz.seed", 0x5eed_2025L);
        Random random = new Random(seed);
        // Answers arrive on gRPC threads: the tallies must be thread-safe (a plain EnumMap lost a count).
        Map<Status.Code, AtomicLong> codes = Collections.synchronizedMap(new EnumMap<>(Status.Code.class));
        Map<Status.Code, AtomicLong> healerCodes = Collections.synchronizedMap(new EnumMap<>(Status.Code.class));
        Map<String, AtomicLong> kinds = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        long start = System.nanoTime();

        List<CompletableFuture<String>> window = new ArrayList<>(WINDOW);
        for (int i = 0; i < iterations; i++) {
            Rpc rpc = FUZZED.get(random.nextInt(FUZZED.size()));
            String kind;
            byte[] input;
            switch (random.nextInt(3)) {
                case 0 -> {
                    kind = "random bytes";
                    input = randomBytes(random, random.nextInt(8) == 0 ? 4096 : 96);
                }
                case 1 -> {
                    kind = "mutated request";
                    input = mutate(random, randomRequest(random, rpc).toByteArray());
                }
                default -> {
                    kind = "random field values";
                    input = randomRequest(random, rpc).toByteArray();
                }
            }
            kinds.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
            int iteration = i;
            window.add(send(rpc, input).handle((answer, error) -> {
                Status status = error == null ? Status.OK : Status.fromThrowable(error);
                codes.computeIfAbsent(status.getCode(), c -> new AtomicLong()).incrementAndGet();
                if (rpc == Rpc.NODE_HEALER) {
                    healerCodes
                            .computeIfAbsent(status.getCode(), c -> new AtomicLong())
                            .incrementAndGet();
                }
                String what = "#" + iteration + " " + rpc.methodName() + " " + kind + " (seed " + seed + ") -> "
                        + status.getCode() + ": " + status.getDescription();
                if (!ALLOWED.contains(status.getCode())) {
                    return what;
                }
                if (error == null) {
                    try {
                        responseParser(rpc).parseFrom(answer);
                    } catch (IOException e) {
                        return what + ", unparseable response " + e.getMessage();
                    }
                }
                return null;
            }));
            if (window.size() == WINDOW || i == iterations - 1) {
                for (CompletableFuture<String> answer : window) {
                    String problem = answer.get(5, TimeUnit.MINUTES);
                    if (problem != null && problems.size() < 20) {
                        problems.add(problem);
                    }
                }
                window.clear();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "fuzz: %,d calls (seed %d) in %.1f s, %,.0f/s; inputs %s; answers %s;" + " NodeHealer answers %s%n",
                iterations,
                seed,
                seconds,
                iterations / seconds,
                kinds,
                codes,
                healerCodes);

        assertThat(problems).as("answers outside the spec's codes").isEmpty();
        assertThat(codes.values().stream().mapToLong(AtomicLong::get).sum()).isEqualTo(iterations);
        assertThat(codes).containsKeys(Status.Code.OK, Status.Code.INVALID_ARGUMENT);
        assertThat(healerCodes)
                .as("NodeHealer was fuzzed and reached the healer driver")
                .containsKeys(Status.Code.OK, Status.Code.INVALID_ARGUMENT, Status.Code.NOT_FOUND);
        // Still serving, nothing stuck in flight.
        byte[] valid = EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(volume("vol-after"))
                .build()
                .toByteArray();
        assertThat(send(Rpc.ENABLE_VOLUME_REPLICATION, valid).get(5, TimeUnit.MINUTES))
                .isNotNull();
        byte[] heal = NodeHealerRequest.newBuilder()
                .setVolumeId("vol-after")
                .setVolumePath("/var/lib/vol-after")
                .build()
                .toByteArray();
        assertThat(NodeHealerResponse.parseFrom(send(Rpc.NODE_HEALER, heal).get(5, TimeUnit.MINUTES))
                        .getMessage())
                .isNotBlank();
        assertThat(server.busySources()).isZero();
        assertThat(server.isTerminated()).isFalse();
    }

    @Test
    void limitsAreExactOnEveryMethod() throws Exception {
        String ascii128 = "v".repeat(CsiLimits.MAX_STRING_BYTES);
        String multiByte128 = "é".repeat(CsiLimits.MAX_STRING_BYTES / 2); // 2 bytes each
        String emoji128 = "\uD83D\uDE80".repeat(CsiLimits.MAX_STRING_BYTES / 4); // 4 bytes each
        String straddling129 = "v".repeat(CsiLimits.MAX_STRING_BYTES - 1) + "é";
        for (Rpc rpc : RPCS) {
            for (String ok : List.of(ascii128, multiByte128, emoji128)) {
                assertThat(code(rpc, request(rpc, volume(ok), Map.of(), "")))
                        .as("%s id of 128 bytes", rpc)
                        .isEqualTo(Status.Code.OK);
            }
            for (String tooLong : List.of(ascii128 + "v", straddling129, emoji128 + "v")) {
                assertThat(code(rpc, request(rpc, volume(tooLong), Map.of(), "")))
                        .as("%s id of 129+ bytes", rpc)
                        .isEqualTo(Status.Code.INVALID_ARGUMENT);
            }
            for (String map : List.of("parameters", "secrets")) {
                if (prototype(rpc).getDescriptorForType().findFieldByName(map) == null) {
                    continue; // GetVolumeReplicationInfo has no parameters
                }
                assertThat(code(
                                rpc,
                                withMap(
                                        request(rpc, volume("vol-1"), Map.of(), ""),
                                        map,
                                        mapOfBytes(CsiLimits.MAX_MAP_BYTES))))
                        .as("%s %s of 4096 bytes", rpc, map)
                        .isEqualTo(Status.Code.OK);
                assertThat(code(
                                rpc,
                                withMap(
                                        request(rpc, volume("vol-1"), Map.of(), ""),
                                        map,
                                        mapOfBytes(CsiLimits.MAX_MAP_BYTES + 1))))
                        .as("%s %s of 4097 bytes", rpc, map)
                        .isEqualTo(Status.Code.INVALID_ARGUMENT);
            }
            if (prototype(rpc).getDescriptorForType().findFieldByName("replication_id") == null) {
                continue; // upstream's GetReplicationDestinationInfo has none
            }
            assertThat(code(rpc, request(rpc, volume("vol-1"), Map.of(), ascii128)))
                    .as("%s replication_id", rpc)
                    .isEqualTo(Status.Code.OK);
            assertThat(code(rpc, request(rpc, volume("vol-1"), Map.of(), ascii128 + "v")))
                    .as("%s replication_id of 129 bytes", rpc)
                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
        }
    }

    private static Message withMap(Message request, String field, Map<String, String> entries) {
        Message.Builder b = request.toBuilder();
        putAll(b, field(b, field), entries);
        return b.build();
    }

    /** A map whose keys and values add up to exactly {@code bytes} UTF-8 bytes. */
    private static Map<String, String> mapOfBytes(int bytes) {
        Map<String, String> map = new LinkedHashMap<>();
        int left = bytes;
        for (int i = 0; left > 0; i++) {
            String key = String.format(Locale.ROOT, "k%03d", i);
            int valueBytes = Math.min(100, left - key.length());
            if (valueBytes < 0) {
                throw new IllegalStateException("cannot make a map of " + bytes + " bytes");
            }
            map.put(key, "x".repeat(valueBytes));
            left -= key.length() + valueBytes;
        }
        return map;
    }

    private Status.Code code(Rpc rpc, Message request) throws Exception {
        try {
            send(rpc, request.toByteArray()).get(5, TimeUnit.MINUTES);
            return Status.Code.OK;
        } catch (ExecutionException e) {
            return Status.fromThrowable(e.getCause()).getCode();
        }
    }

    /** One unary call with raw bytes; completes with the response bytes or the gRPC error. */
    private CompletableFuture<byte[]> send(Rpc rpc, byte[] request) {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(
                channel.newCall(method(rpc), CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)),
                request,
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        answer.complete(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        answer.complete(new byte[0]);
                    }
                });
        return answer;
    }

    private static MethodDescriptor<byte[], byte[]> method(Rpc rpc) {
        return RawBytes.unary(rpc.fullMethodName());
    }

    private static Parser<? extends Message> responseParser(Rpc rpc) {
        return switch (rpc) {
            case ENABLE_VOLUME_REPLICATION -> EnableVolumeReplicationResponse.parser();
            case DISABLE_VOLUME_REPLICATION -> DisableVolumeReplicationResponse.parser();
            case PROMOTE_VOLUME -> PromoteVolumeResponse.parser();
            case DEMOTE_VOLUME -> DemoteVolumeResponse.parser();
            case RESYNC_VOLUME -> ResyncVolumeResponse.parser();
            case GET_VOLUME_REPLICATION_INFO -> GetVolumeReplicationInfoResponse.parser();
            case GET_REPLICATION_DESTINATION_INFO -> GetReplicationDestinationInfoResponse.parser();
            case NODE_HEALER -> NodeHealerResponse.parser();
            default -> throw new IllegalArgumentException(rpc.name());
        };
    }

    private static Message prototype(Rpc rpc) {
        return switch (rpc) {
            case ENABLE_VOLUME_REPLICATION -> EnableVolumeReplicationRequest.getDefaultInstance();
            case DISABLE_VOLUME_REPLICATION -> DisableVolumeReplicationRequest.getDefaultInstance();
            case PROMOTE_VOLUME -> PromoteVolumeRequest.getDefaultInstance();
            case DEMOTE_VOLUME -> DemoteVolumeRequest.getDefaultInstance();
            case RESYNC_VOLUME -> ResyncVolumeRequest.getDefaultInstance();
            case GET_VOLUME_REPLICATION_INFO -> GetVolumeReplicationInfoRequest.getDefaultInstance();
            case GET_REPLICATION_DESTINATION_INFO -> GetReplicationDestinationInfoRequest.getDefaultInstance();
            case NODE_HEALER -> NodeHealerRequest.getDefaultInstance();
            default -> throw new IllegalArgumentException(rpc.name());
        };
    }

    /** A request of {@code rpc}'s type, set through protobuf's reflection so one generator serves all six. */
    private static Message request(
            Rpc rpc, ReplicationSource source, Map<String, String> parameters, String replicationId) {
        Message.Builder b = prototype(rpc).toBuilder();
        if (source != null) {
            b.setField(field(b, "replication_source"), source);
        }
        FieldDescriptor params = b.getDescriptorForType().findFieldByName("parameters");
        if (params != null) {
            putAll(b, params, parameters);
        }
        FieldDescriptor rid = b.getDescriptorForType().findFieldByName("replication_id");
        if (rid != null) {
            b.setField(rid, replicationId);
        }
        return b.build();
    }

    private static Message randomRequest(Random random, Rpc rpc) {
        if (rpc == Rpc.NODE_HEALER) {
            return randomHealerRequest(random);
        }
        Message.Builder b = prototype(rpc).toBuilder();
        if (random.nextInt(5) != 0) {
            b.setField(field(b, "replication_source"), randomSource(random));
        }
        FieldDescriptor volumeId = b.getDescriptorForType().findFieldByName("volume_id");
        if (volumeId != null && random.nextInt(4) == 0) {
            b.setField(volumeId, randomString(random));
        }
        for (String map : List.of("parameters", "secrets")) {
            FieldDescriptor fd = b.getDescriptorForType().findFieldByName(map);
            if (fd != null && random.nextBoolean()) {
                putAll(b, fd, randomMap(random));
            }
        }
        FieldDescriptor replicationId = b.getDescriptorForType().findFieldByName("replication_id");
        if (replicationId != null && random.nextInt(3) == 0) {
            b.setField(replicationId, randomString(random));
        }
        FieldDescriptor force = b.getDescriptorForType().findFieldByName("force");
        if (force != null) {
            b.setField(force, random.nextBoolean());
        }
        return b.build();
    }

    /** NodeHealer: random ids, paths (absolute, relative, long), capabilities, secrets and volume contexts. */
    private static NodeHealerRequest randomHealerRequest(Random random) {
        NodeHealerRequest.Builder b = NodeHealerRequest.newBuilder();
        if (random.nextInt(6) != 0) {
            b.setVolumeId(randomString(random));
        }
        if (random.nextInt(6) != 0) {
            b.setVolumePath(randomPath(random));
        }
        if (random.nextInt(3) == 0) {
            b.setStagingTargetPath(randomPath(random));
        }
        if (random.nextInt(3) == 0) {
            VolumeCapability.Builder capability = VolumeCapability.newBuilder();
            if (random.nextBoolean()) {
                capability.setMount(VolumeCapability.MountVolume.newBuilder()
                        .setFsType(randomString(random))
                        .addMountFlags(randomString(random)));
            } else if (random.nextBoolean()) {
                capability.setBlock(VolumeCapability.BlockVolume.getDefaultInstance());
            }
            if (random.nextBoolean()) {
                capability.setAccessMode(
                        VolumeCapability.AccessMode.newBuilder().setModeValue(random.nextInt(12)));
            }
            b.setVolumeCapability(capability);
        }
        if (random.nextBoolean()) {
            b.putAllSecrets(randomMap(random));
        }
        if (random.nextBoolean()) {
            b.putAllVolumeContext(randomMap(random));
        }
        return b.build();
    }

    /** Absolute paths (some over PATH_MAX), relative ones, and the strings of {@link #randomString}. */
    private static String randomPath(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> "/var/lib/kubelet/pods/" + randomString(random) + "/volumes/mount";
            case 1 -> "/" + "d/".repeat(random.nextBoolean() ? 60 : 2100);
            // ~120 or 4200 bytes
            case 2 -> "relative/" + randomString(random);
            default -> randomString(random);
        };
    }

    private static ReplicationSource randomSource(Random random) {
        String id = randomString(random);
        return switch (random.nextInt(5)) {
            case 0 ->
                ReplicationSource.newBuilder()
                        .setVolumegroup(
                                ReplicationSource.VolumeGroupSource.newBuilder().setVolumeGroupId(id))
                        .build();
            case 1 ->
                ReplicationSource.newBuilder()
                        .setVolumesnapshot(ReplicationSource.VolumeSnapshotSource.newBuilder()
                                .setVolumeSnapshotId(id))
                        .build();
            case 2 -> ReplicationSource.getDefaultInstance();
            // oneof not set
            default -> volume(id);
        };
    }

    private static ReplicationSource volume(String id) {
        return ReplicationSource.newBuilder()
                .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(id))
                .build();
    }

    private static final String[] SAMPLES = {
        "",
        " ",
        "vol-1",
        "missing-1",
        "pre-1",
        "\u0000",
        "a\u0000b",
        "é",
        "\uD83D\uDE80",
        "\u202Etxt",
        "e\u0301",
        "\uFEFF",
        "\n",
        "../../etc/passwd",
        "%s%n",
        "password=x",
        "\uD800",
        "\uDFFF\uD800"
    };

    /** Ids and values: samples, random unicode, and sizes around the 128-byte limit. */
    private static String randomString(Random random) {
        switch (random.nextInt(6)) {
            case 0 -> {
                return SAMPLES[random.nextInt(SAMPLES.length)];
            }
            case 1 -> {
                int n = CsiLimits.MAX_STRING_BYTES - 2 + random.nextInt(4); // 126..129 bytes
                return "v".repeat(n);
            }
            case 2 -> {
                StringBuilder s = new StringBuilder();
                int n = random.nextInt(70);
                for (int i = 0; i < n; i++) {
                    s.appendCodePoint(randomCodePoint(random));
                }
                return s.toString();
            }
            case 3 -> {
                return (random.nextBoolean() ? "missing-" : "pre-") + random.nextInt(1000);
            }
            default -> {
                return "vol-" + random.nextInt(64);
            }
        }
    }

    private static int randomCodePoint(Random random) {
        switch (random.nextInt(4)) {
            case 0 -> {
                return random.nextInt(0x80);
            }
            case 1 -> {
                return 0x80 + random.nextInt(0x800 - 0x80);
            }
            case 2 -> {
                int c = 0x800 + random.nextInt(0x10000 - 0x800);
                return Character.isSurrogate((char) c) ? 'x' : c;
            }
            default -> {
                return 0x10000 + random.nextInt(0x110000 - 0x10000);
            }
        }
    }

    /** Small maps, maps of about 4 KiB (at and over the limit), keys and values from {@link #randomString}. */
    private static Map<String, String> randomMap(Random random) {
        Map<String, String> map = new LinkedHashMap<>();
        if (random.nextInt(4) == 0) {
            return mapOfBytes(CsiLimits.MAX_MAP_BYTES - 1 + random.nextInt(3)); // 4095..4097 bytes
        }
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
            map.put(randomString(random), randomString(random));
        }
        return map;
    }

    private static void putAll(Message.Builder b, FieldDescriptor mapField, Map<String, String> entries) {
        for (Map.Entry<String, String> e : entries.entrySet()) {
            Message.Builder entry = b.newBuilderForField(mapField);
            entry.setField(entry.getDescriptorForType().findFieldByName("key"), e.getKey());
            entry.setField(entry.getDescriptorForType().findFieldByName("value"), e.getValue());
            b.addRepeatedField(mapField, entry.build());
        }
    }

    private static FieldDescriptor field(Message.Builder b, String name) {
        FieldDescriptor fd = b.getDescriptorForType().findFieldByName(name);
        if (fd == null) {
            throw new IllegalArgumentException(b.getDescriptorForType().getName() + " has no " + name);
        }
        return fd;
    }

    private static byte[] randomBytes(Random random, int maxLength) {
        byte[] bytes = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(bytes);
        return bytes;
    }

    /** One to four byte-level mutations of a valid request. */
    private static byte[] mutate(Random random, byte[] valid) {
        byte[] b = valid;
        int mutations = 1 + random.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            int at = b.length == 0 ? 0 : random.nextInt(b.length);
            switch (random.nextInt(6)) {
                case 0 -> {
                    if (b.length > 0) {
                        b = b.clone();
                        b[at] ^= (byte) (1 << random.nextInt(8));
                    }
                }
                case 1 -> {
                    if (b.length > 0) {
                        b = b.clone();
                        b[at] = (byte) random.nextInt(256);
                    }
                }
                case 2 -> b = Arrays.copyOf(b, at);
                // truncate
                case 3 -> {
                    byte[] insert = randomBytes(random, 8);
                    byte[] out = new byte[b.length + insert.length];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(insert, 0, out, at, insert.length);
                    System.arraycopy(b, at, out, at + insert.length, b.length - at);
                    b = out;
                }
                case 4 -> {
                    int len = Math.min(b.length - at, 1 + random.nextInt(8));
                    byte[] out = new byte[b.length - len];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(b, at + len, out, at, b.length - at - len);
                    b = out;
                }
                default -> {
                    byte[] out = Arrays.copyOf(b, b.length * 2); // fields repeated
                    System.arraycopy(b, 0, out, b.length, b.length);
                    b = out;
                }
            }
        }
        return b;
    }

    /** Every volume is healthy, except that ids starting with {@code missing} do not exist. */
    private static final class TypedOnlyHealer implements HealerDriver {
        @Override
        public HealReport heal(HealRequest r) {
            if (r.volumeId().startsWith("missing")) {
                throw new SourceNotFoundException("volume " + r.volumeId() + " does not exist");
            }
            return (r.volumeId().hashCode() & 1) == 0
                    ? HealReport.healthy("healthy")
                    : HealReport.abnormal("filesystem errors");
        }
    }

    /**
     * Accepts everything, except that ids starting with {@code missing} do not exist and ids starting with
     * {@code pre} are not enabled; throws nothing but the api's typed exceptions.
     */
    private static final class TypedOnlyDriver implements ReplicationDriver {
        private static void check(io.volrep.api.ReplicationSource source) {
            if (source.id().startsWith("missing")) {
                throw new SourceNotFoundException(source + " does not exist");
            }
            if (source.id().startsWith("pre")) {
                throw new PreconditionFailedException("replication is not enabled for " + source);
            }
        }

        @Override
        public void enable(EnableRequest r) {
            check(r.source());
        }

        @Override
        public void disable(DisableRequest r) {
            check(r.source());
        }

        @Override
        public void promote(PromoteRequest r) {
            check(r.source());
        }

        @Override
        public void demote(DemoteRequest r) {
            check(r.source());
        }

        @Override
        public ResyncResult resync(ResyncRequest r) {
            check(r.source());
            return new ResyncResult((r.source().id().hashCode() & 1) == 0);
        }

        @Override
        public ReplicationInfo info(InfoRequest r) {
            check(r.source());
            return ReplicationInfo.of(Instant.parse("2025-01-01T00:00:00Z"));
        }

        @Override
        public ReplicationDestination destination(DestinationRequest r) {
            check(r.source());
            // A destination id of its own, within CSI's 128 bytes whatever the source's id.
            String id = "dst-" + Integer.toHexString(r.source().id().hashCode());
            return r.source().kind() == Kind.VOLUME
                    ? ReplicationDestination.volume(id)
                    : ReplicationDestination.volumeGroup(id, Map.of());
        }

        @Override
        public Set<Rpc> servedRpcs() {
            return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
        }
    }
}

package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.WireLevel;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@code jar --describe-module} shows for each published jar (read here with {@link ModuleFinder}, as the
 * JVM does): a named module exporting exactly its API packages to everyone (for replication-api also the spec's
 * generated wire messages, the documented escape hatch); internals (the wire mapping, the SPI's call pipeline) only
 * to volrep's own modules; and no generated type in an exported signature unless marked {@link WireLevel}.
 */
class ModuleDescriptorsIT {
    private static final Map<String, Set<String>> API = new TreeMap<>(Map.of(
            "replication-api",
                    Set.of(
                            "io.volrep.api",
                            "io.volrep.proto.replication",
                            "io.volrep.proto.replication.v0_1_3",
                            "io.volrep.proto.replication.v0_1_0",
                            "io.volrep.proto.healer",
                            "io.volrep.proto.identity",
                            "io.volrep.proto.csi",
                            "io.volrep.proto.volumegroup"),
            "replication-client", Set.of("io.volrep.client", "io.volrep.client.reconcile"),
            "replication-spi", Set.of("io.volrep.spi", "io.volrep.spi.exec"),
            "replication-testkit", Set.of("io.volrep.testkit", "io.volrep.testkit.fake", "io.volrep.testkit.reference"),
            "replication-micrometer", Set.of("io.volrep.micrometer"),
            "replication-ceph", Set.of("io.volrep.ceph")));

    static Stream<String> publishedJars() {
        return API.keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("publishedJars")
    void exportsOnlyItsApiPackagesToEveryone(String artifact) throws IOException {
        ModuleDescriptor descriptor = descriptor(artifact);

        assertThat(descriptor.isAutomatic())
                .as("%s has a module-info", artifact)
                .isFalse();
        assertThat(descriptor.name()).isEqualTo("io.volrep." + artifact.substring("replication-".length()));
        Set<String> unqualified = descriptor.exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(unqualified).containsExactlyInAnyOrderElementsOf(API.get(artifact));
        descriptor.exports().stream()
                .filter(ModuleDescriptor.Exports::isQualified)
                .forEach(e -> assertThat(e.targets())
                        .as("internal package %s", e.source())
                        .allSatisfy(t -> assertThat(t)
                                .matches("io\\.volrep\\..*|com\\.google\\.protobuf|io\\.grpc\\.protobuf")));
        assertThat(descriptor.packages())
                .as("every package of %s is in the descriptor", artifact)
                .containsAll(API.get(artifact));
    }

    @Test
    void theClientReadsGuavaWhoseDirectExecutorItUses() throws IOException {
        // Without it, a client on the module path fails with IllegalAccessError on its first directExecutor() call.
        assertThat(descriptor("replication-client").requires())
                .extracting(ModuleDescriptor.Requires::name)
                .contains("com.google.common");
    }

    @ParameterizedTest
    @MethodSource("publishedJars")
    void noGeneratedTypeAppearsInAnExportedSignature(String artifact) throws Exception {
        List<String> leaks = new ArrayList<>();
        try (JarFile jar = new JarFile(jar(artifact).toFile())) {
            for (JarEntry entry : Collections.list(jar.entries())) {
                String name = entry.getName();
                if (!name.endsWith(".class") || name.equals("module-info.class")) {
                    continue;
                }
                String className =
                        name.substring(0, name.length() - ".class".length()).replace('/', '.');
                String pkg = className.substring(0, className.lastIndexOf('.'));
                if (!API.get(artifact).contains(pkg) || pkg.startsWith("io.volrep.proto.")) {
                    continue;
                }
                Class<?> type = Class.forName(className, false, getClass().getClassLoader());
                if (!Modifier.isPublic(type.getModifiers())
                        || !isVisible(type)
                        || type.isAnnotationPresent(WireLevel.class)) {
                    continue;
                }
                for (Method m : type.getDeclaredMethods()) {
                    if (visible(m.getModifiers()) && !m.isSynthetic() && !m.isAnnotationPresent(WireLevel.class)) {
                        check(leaks, type, m.getName(), m.getGenericReturnType());
                        for (Type p : m.getGenericParameterTypes()) {
                            check(leaks, type, m.getName(), p);
                        }
                    }
                }
                for (Constructor<?> c : type.getDeclaredConstructors()) {
                    if (visible(c.getModifiers()) && !c.isAnnotationPresent(WireLevel.class)) {
                        for (Type p : c.getGenericParameterTypes()) {
                            check(leaks, type, "<init>", p);
                        }
                    }
                }
                for (Field f : type.getDeclaredFields()) {
                    if (visible(f.getModifiers()) && !f.isAnnotationPresent(WireLevel.class)) {
                        check(leaks, type, f.getName(), f.getGenericType());
                    }
                }
            }
        }
        assertThat(leaks)
                .as("generated protobuf types in the exported API of %s", artifact)
                .isEmpty();
    }

    private static boolean isVisible(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
            if (!Modifier.isPublic(t.getModifiers()) && t != type) {
                return false;
            }
        }
        return true;
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(List<String> leaks, Class<?> owner, String member, Type type) {
        if (type.getTypeName().contains("io.volrep.proto.")) {
            leaks.add(owner.getName() + "." + member + ": " + type.getTypeName());
        }
    }

    private static ModuleDescriptor descriptor(String artifact) throws IOException {
        return ModuleFinder.of(jar(artifact)).findAll().iterator().next().descriptor();
    }

    private static Path jar(String artifact) throws IOException {
        Path target = Path.of("..", artifact, "target");
        Path jar;
        try (Stream<Path> files = Files.list(target)) {
            jar = files.filter(p -> p.getFileName()
                            .toString()
                            .matches(artifact + "-[0-9].*(?<!-sources|-javadoc|-tests)\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no jar in " + target.toAbsolutePath()));
        }
        return jar;
    }
}

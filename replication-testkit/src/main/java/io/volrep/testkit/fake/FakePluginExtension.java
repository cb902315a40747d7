package io.volrep.testkit.fake;

import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a {@link FakePlugin} for JUnit 5 tests. On a {@code static} field it starts once per class and is
 * {@linkplain FakePlugin#reset() reset} before each test; on an instance field it starts and stops around
 * each test. Test methods can also take the {@link FakePlugin} as a parameter.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final FakePluginExtension fake = new FakePluginExtension(() -> FakePlugin.builder().volumes(2));
 *
 * @Test
 * void retriesAborted() {
 *     fake.plugin().failNext(Rpc.PROMOTE_VOLUME, 1, StatusCode.ABORTED);
 *     ... dial fake.plugin().address() ...
 * }
 * }</pre>
 */
public final class FakePluginExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private final Supplier<FakePlugin.Builder> builder;
    private FakePlugin plugin;
    private boolean perClass;

    /** An extension that builds its plugin with {@code builder}. */
    public FakePluginExtension(Supplier<FakePlugin.Builder> builder) {
        this.builder = Objects.requireNonNull(builder, "builder");
    }

    /** The running plugin. */
    public FakePlugin plugin() {
        if (plugin == null) {
            throw new IllegalStateException("the fake plugin runs only while a test runs");
        }
        return plugin;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        plugin = builder.get().start();
        perClass = true;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (perClass && plugin != null) {
            plugin.close();
            plugin = null;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (perClass) {
            plugin.reset();
        } else {
            plugin = builder.get().start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass && plugin != null) {
            plugin.close();
            plugin = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == FakePlugin.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return plugin();
    }
}

package io.volrep.cli;

/**
 * What the serve commands that build their own driver ({@code serve-exec}, {@code serve-ceph}) share: their
 * {@link ServeOptions} ({@code --grace-period}, {@code --metrics-listen}) and the run itself. {@link #start()} builds
 * the driver and starts serving it; an address that cannot be used exits 2; then the command serves until SIGTERM or
 * SIGINT, drains the server, closes the driver (killing what it still runs) and exits 0.
 *
 * <pre>{@code
 * final class ServeFooCommand extends DriverServeCommand<FooDriver> {
 *     @Mixin
 *     ServeOptions serveOptions = serve;
 *
 *     ServeStart.Served<FooDriver> start() {
 *         FooDriver driver = new FooDriver();
 *         return new ServeStart.Served<>(ServeStart.start(serve.metrics.bind(ReplicationServer.builder()
 *                 .driver(driver).listen(listen).gracePeriod(serve.gracePeriod))), driver);
 *     }
 * }
 * }</pre>
 *
 * @param <D> the driver the command serves, closed after the server
 */
abstract class DriverServeCommand<D extends AutoCloseable> extends Subcommand {

    /**
     * {@code --grace-period} and {@code --metrics-listen}. Each subclass declares it as its last {@code @Mixin}
     * ({@code @Mixin ServeOptions serveOptions = serve;}): picocli lists a superclass's options before the subclass's.
     */
    final ServeOptions serve = new ServeOptions();

    @Override
    public final Integer call() throws InterruptedException {
        ServeStart.Served<D> started;
        try {
            started = start();
        } catch (ServeStart.CannotListen e) {
            return ServeStart.report(spec, e);
        } catch (RuntimeException e) {
            return cannotStart(e);
        }
        return ServeStart.serveUntilSignal(spec, serve.metrics, started);
    }

    /** Builds the driver and starts serving it (tests use this without waiting for a signal). */
    abstract ServeStart.Served<D> start();

    /**
     * The exit status when {@link #start()} fails for another reason than the address; by default the failure
     * propagates (a usage error: picocli prints it with the usage and exits 2).
     */
    int cannotStart(RuntimeException e) {
        throw e;
    }
}

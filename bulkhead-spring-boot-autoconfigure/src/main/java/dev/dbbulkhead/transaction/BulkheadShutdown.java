package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.AdmissionGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Shuts the gates of every workload down when the application stops: from then on each refuses new work at once with
 * {@link dev.dbbulkhead.RejectionReason#SHUTTING_DOWN SHUTTING_DOWN} (a 503 with {@code Retry-After} over HTTP), while
 * the operations already admitted, running or queued, finish. Logs how many were in flight when the shutdown began,
 * then that every gate drained, or which did not by the end of the shutdown phase.
 *
 * <p>Stops in the phase of the web server's graceful shutdown ({@value #PHASE}), just after the web server was told to
 * stop taking requests: while the server drains the requests it has, the gates drain the operations they admitted,
 * and work that has not reached its gate yet is turned away rather than started. Both wait within the same phase
 * timeout ({@code spring.lifecycle.timeout-per-shutdown-phase}); the connection pool closes only after that phase.
 */
public final class BulkheadShutdown implements SmartLifecycle, BeanFactoryAware, BeanNameAware,
        SmartInitializingSingleton {

    /** The phase of Spring Boot's graceful shutdown of the web server: {@code SmartLifecycle.DEFAULT_PHASE - 1024}. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    /** The bean Spring Boot registers to shut its web server down gracefully. */
    private static final String WEB_SERVER_GRACEFUL_SHUTDOWN = "webServerGracefulShutdown";

    private static final Log logger = LogFactory.getLog(BulkheadShutdown.class);

    private final Supplier<BulkheadRegistry> registry;
    private final Duration drainTimeout;
    private volatile boolean running;
    private @Nullable BeanFactory beanFactory;
    private @Nullable String beanName;

    /**
     * @param registry     the workloads whose gates shut down, asked when the application stops
     * @param drainTimeout how long the gates may take to drain: the shutdown phase's timeout
     */
    public BulkheadShutdown(Supplier<BulkheadRegistry> registry, Duration drainTimeout) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.drainTimeout = Objects.requireNonNull(drainTimeout, "drainTimeout");
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void setBeanName(String name) {
        this.beanName = name;
    }

    /**
     * Orders the stop within the phase: the lifecycle processor stops the beans that depend on a bean before it, so
     * the web server is told to stop taking requests before the gates close.
     */
    @Override
    public void afterSingletonsInstantiated() {
        if (beanFactory instanceof ConfigurableBeanFactory configurable && beanName != null
                && configurable.containsSingleton(WEB_SERVER_GRACEFUL_SHUTDOWN)) {
            configurable.registerDependentBean(beanName, WEB_SERVER_GRACEFUL_SHUTDOWN);
        }
    }

    @Override
    public void start() {
        running = true;
    }

    /** Shuts the gates down and waits for them to drain, within the drain timeout. */
    @Override
    public void stop() {
        drain(shutDownGates());
    }

    /** Shuts the gates down, then waits for them to drain on a thread of its own, and tells {@code callback}. */
    @Override
    public void stop(Runnable callback) {
        List<AdmissionGate> gates = shutDownGates();
        Thread drain = new Thread(() -> {
            try {
                drain(gates);
            } finally {
                callback.run();
            }
        }, "db-bulkhead-drain");
        drain.setDaemon(true);
        drain.start();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Never paused: a gate that is shut down stays shut, so a pause (Spring's test context cache pauses the
     * applications it keeps while another one runs) would leave every workload refusing as {@code SHUTTING_DOWN}
     * once the application runs again. Only the application's close shuts the gates.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private List<AdmissionGate> shutDownGates() {
        running = false;
        BulkheadRegistry workloads = registry.get();
        List<AdmissionGate> gates = new ArrayList<>();
        for (String name : workloads.names()) {
            AdmissionGate gate = workloads.template(name).gate();
            gate.shutDown();
            gates.add(gate);
        }
        if (!gates.isEmpty() && logger.isInfoEnabled()) {
            int inFlight = 0;
            for (AdmissionGate gate : gates) {
                inFlight += gate.active() + gate.waiting();
            }
            logger.info("Shutting down the database workloads: new work is refused; " + inFlight
                    + (inFlight == 1 ? " operation" : " operations") + " in flight" + (inFlight == 0 ? ""
                    : " (" + counts(gates) + ")") + " may finish within " + drainTimeout.toMillis() + " ms");
        }
        return gates;
    }

    private void drain(List<AdmissionGate> gates) {
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        List<AdmissionGate> undrained = new ArrayList<>();
        try {
            for (AdmissionGate gate : gates) {
                if (!gate.awaitDrained(Duration.ofNanos(Math.max(0L, deadline - System.nanoTime())))) {
                    undrained.add(gate);
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            gates.stream().filter(gate -> !gate.isDrained() && !undrained.contains(gate)).forEach(undrained::add);
        }
        if (gates.isEmpty()) {
            return;
        }
        if (undrained.isEmpty()) {
            logger.info("Every database workload drained: no operation runs or waits in "
                    + String.join(", ", names(gates)));
        } else {
            logger.warn("Database workloads not drained by the end of the shutdown phase (" + drainTimeout.toMillis()
                    + " ms): " + counts(undrained) + "; the connection pool closes under them");
        }
    }

    /** The operations in each gate that still holds some. */
    private static String counts(List<AdmissionGate> gates) {
        StringJoiner counts = new StringJoiner(", ");
        for (AdmissionGate gate : gates) {
            int running = gate.active();
            int queued = gate.waiting();
            if (running + queued > 0) {
                counts.add(gate.workload() + ": " + running + " running, " + queued + " queued");
            }
        }
        return counts.toString();
    }

    private static List<String> names(List<AdmissionGate> gates) {
        return gates.stream().map(AdmissionGate::workload).toList();
    }
}

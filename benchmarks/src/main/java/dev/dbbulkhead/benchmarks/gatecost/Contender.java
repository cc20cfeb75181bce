package dev.dbbulkhead.benchmarks.gatecost;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.benchmarks.alternatives.ConcurrencyLimitedCalls;
import dev.dbbulkhead.benchmarks.alternatives.Resilience4jBulkheads;
import dev.dbbulkhead.benchmarks.alternatives.SpringResilience;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.Permit;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.interceptor.ConcurrencyThrottleInterceptor;
import org.springframework.resilience.InvocationRejectedException;

/**
 * The guards compared in the gate-cost benchmarks. Each is built for a {@link Shape}: wide (nobody is ever
 * refused; the limit is above the thread count) or single (one permit, to be held by an occupant so that the
 * measured call is refused).
 */
public enum Contender {

    /** The floor: one non-fair {@link Semaphore}, tried and released. What any guard must at least do. */
    SEMAPHORE {
        @Override
        GuardUnderTest create(Shape shape) {
            Semaphore permits = new Semaphore(shape.limit, false);
            return new GuardUnderTest() {
                @Override
                public Object admitRelease() {
                    if (!permits.tryAcquire()) {
                        return Boolean.FALSE;
                    }
                    permits.release();
                    return null;
                }

                @Override
                public void holdWhile(Runnable body) {
                    if (!permits.tryAcquire()) {
                        throw new RejectedExecutionException("no permit");
                    }
                    try {
                        body.run();
                    } finally {
                        permits.release();
                    }
                }
            };
        }
    },

    /** Two plain semaphores as the design describes them, with no fast path: a reference, not a product. */
    NAIVE_TWO_SEMAPHORES {
        @Override
        GuardUnderTest create(Shape shape) {
            Semaphore admission = new Semaphore(shape.limit, false);
            Semaphore execution = new Semaphore(shape.limit, true);
            long waitNanos = shape.queueWait.toNanos();
            return new GuardUnderTest() {
                @Override
                public Object admitRelease() {
                    if (!admission.tryAcquire()) {
                        return Boolean.FALSE;
                    }
                    try {
                        if (!execution.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
                            return Boolean.FALSE;
                        }
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        admission.release();
                        return Boolean.FALSE;
                    }
                    execution.release();
                    admission.release();
                    return null;
                }

                @Override
                public void holdWhile(Runnable body) {
                    if (!admission.tryAcquire()) {
                        throw new RejectedExecutionException("no admission permit");
                    }
                    execution.acquireUninterruptibly();
                    try {
                        body.run();
                    } finally {
                        execution.release();
                        admission.release();
                    }
                }
            };
        }
    },

    /** db-bulkhead's {@link AdmissionGate} with its defaults: refusals carry no stack trace. */
    DB_BULKHEAD {
        @Override
        GuardUnderTest create(Shape shape) {
            return gate(shape, false);
        }
    },

    /** db-bulkhead's gate configured to fill in a stack trace on every refusal. */
    DB_BULKHEAD_STACK_TRACE {
        @Override
        GuardUnderTest create(Shape shape) {
            return gate(shape, true);
        }
    },

    /** Resilience4j's {@code SemaphoreBulkhead} with its defaults: refusals fill in a stack trace. */
    RESILIENCE4J {
        @Override
        GuardUnderTest create(Shape shape) {
            return resilience4j(shape, true);
        }
    },

    /** Resilience4j's {@code SemaphoreBulkhead} with {@code writableStackTraceEnabled(false)}. */
    RESILIENCE4J_STACKLESS {
        @Override
        GuardUnderTest create(Shape shape) {
            return resilience4j(shape, false);
        }
    },

    /**
     * Spring's {@link ConcurrencyThrottleInterceptor} called directly with a ready-made invocation, refusing at the
     * limit as {@code @ConcurrencyLimit}'s REJECT policy does: the throttle without the proxy around it.
     */
    SPRING_THROTTLE_INTERCEPTOR {
        @Override
        GuardUnderTest create(Shape shape) {
            ConcurrencyThrottleInterceptor interceptor = new RejectingThrottleInterceptor(shape.limit);
            return new GuardUnderTest() {
                private final MethodInvocation nothing = new ReadyInvocation(() -> {
                });

                @Override
                public Object admitRelease() {
                    try {
                        interceptor.invoke(nothing);
                        return null;
                    } catch (InvocationRejectedException refused) {
                        return refused;
                    } catch (Throwable unexpected) {
                        throw new IllegalStateException(unexpected);
                    }
                }

                @Override
                public void holdWhile(Runnable body) {
                    try {
                        interceptor.invoke(new ReadyInvocation(body));
                    } catch (RuntimeException | Error thrown) {
                        throw thrown;
                    } catch (Throwable unexpected) {
                        throw new IllegalStateException(unexpected);
                    }
                }
            };
        }
    },

    /** {@code @ConcurrencyLimit(policy = REJECT)} on a bean method, called through its Spring proxy. */
    SPRING_CONCURRENCY_LIMIT {
        @Override
        GuardUnderTest create(Shape shape) {
            SpringResilience spring = new SpringResilience();
            ConcurrencyLimitedCalls calls = spring.calls();
            Runnable nothing = () -> {
            };
            boolean wide = shape == Shape.WIDE;
            return new GuardUnderTest() {
                @Override
                public Object admitRelease() {
                    try {
                        if (wide) {
                            calls.wide(nothing);
                        } else {
                            calls.single(nothing);
                        }
                        return null;
                    } catch (InvocationRejectedException refused) {
                        return refused;
                    }
                }

                @Override
                public void holdWhile(Runnable body) {
                    if (wide) {
                        calls.wide(body);
                    } else {
                        calls.single(body);
                    }
                }

                @Override
                public void close() {
                    spring.close();
                }
            };
        }
    };

    /** How a guard is dimensioned for a benchmark. */
    public enum Shape {
        /** Nobody is refused: the limit is above any benchmark's thread count. */
        WIDE(ConcurrencyLimitedCalls.WIDE_LIMIT, Duration.ofMillis(50)),
        /** One permit and no wait: once an occupant holds it, every call is refused at once. */
        SINGLE(1, Duration.ZERO);

        final int limit;
        final Duration queueWait;

        Shape(int limit, Duration queueWait) {
            this.limit = limit;
            this.queueWait = queueWait;
        }
    }

    /** A fresh guard of this kind. */
    abstract GuardUnderTest create(Shape shape);

    private static GuardUnderTest gate(Shape shape, boolean captureStackTrace) {
        // WIDE: B = the limit and as many queued; SINGLE: B = 1, Q = 0, so a held gate refuses as ADMISSION_FULL.
        AdmissionGate gate = new AdmissionGate("benchmark", GateConfig.builder()
                .maxConcurrent(shape.limit)
                .maxQueued(shape == Shape.WIDE ? shape.limit : 0)
                .queueWait(shape.queueWait)
                .captureStackTrace(captureStackTrace)
                .build());
        return new GuardUnderTest() {
            @Override
            public Object admitRelease() {
                try (Permit permit = gate.acquire()) {
                    return null;
                } catch (BulkheadRejectedException refused) {
                    return refused;
                }
            }

            @Override
            public void holdWhile(Runnable body) {
                try (Permit permit = gate.acquire()) {
                    body.run();
                }
            }
        };
    }

    private static GuardUnderTest resilience4j(Shape shape, boolean writableStackTrace) {
        Bulkhead bulkhead = Resilience4jBulkheads.semaphoreBulkhead("benchmark", shape.limit, shape.queueWait,
                writableStackTrace);
        return new GuardUnderTest() {
            @Override
            public Object admitRelease() {
                try {
                    bulkhead.acquirePermission();
                } catch (BulkheadFullException refused) {
                    return refused;
                }
                bulkhead.onComplete();
                return null;
            }

            @Override
            public void holdWhile(Runnable body) {
                bulkhead.acquirePermission();
                try {
                    body.run();
                } finally {
                    bulkhead.onComplete();
                }
            }
        };
    }

    /** Refuses at the limit instead of waiting, as Spring's own REJECT policy does. */
    private static final class RejectingThrottleInterceptor extends ConcurrencyThrottleInterceptor {

        private static final long serialVersionUID = 1L;

        RejectingThrottleInterceptor(int limit) {
            super(limit);
        }

        @Override
        protected void onLimitReached() {
            throw new InvocationRejectedException("Concurrency limit reached: " + getConcurrencyLimit(), this);
        }
    }

    /** The smallest invocation an interceptor accepts: proceeding runs the body. */
    private record ReadyInvocation(Runnable body) implements MethodInvocation {

        private static final Method RUN = runMethod();

        @Override
        public Method getMethod() {
            return RUN;
        }

        @Override
        public Object[] getArguments() {
            return new Object[0];
        }

        @Override
        public Object proceed() {
            body.run();
            return null;
        }

        @Override
        public Object getThis() {
            return body;
        }

        @Override
        public java.lang.reflect.AccessibleObject getStaticPart() {
            return RUN;
        }

        private static Method runMethod() {
            try {
                return Runnable.class.getMethod("run");
            } catch (NoSuchMethodException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
    }
}

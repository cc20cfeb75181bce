package dev.dbbulkhead.gate;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.jspecify.annotations.Nullable;

/**
 * Whether the current thread is virtual, on any JDK the core runs on: {@code Thread.isVirtual()} exists from 21 on,
 * and this module compiles for 17, where no thread is virtual.
 */
final class VirtualThreads {

    /** {@code Thread.isVirtual()}, or {@code null} on a JDK without virtual threads. */
    private static final @Nullable MethodHandle IS_VIRTUAL = isVirtual();

    private VirtualThreads() {
    }

    /** Whether the calling thread is a virtual thread. */
    static boolean current() {
        MethodHandle isVirtual = IS_VIRTUAL;
        if (isVirtual == null) {
            return false;
        }
        try {
            return (boolean) isVirtual.invokeExact(Thread.currentThread());
        } catch (Throwable unexpected) {
            throw new IllegalStateException("Thread.isVirtual() failed", unexpected);
        }
    }

    private static @Nullable MethodHandle isVirtual() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException beforeJdk21) {
            return null;
        }
    }
}

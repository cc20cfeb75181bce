package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;

/**
 * Entry methods whose work would leave the admitted region, against the callback contract (the work runs
 * synchronously, inside the call): the gate admits the call, the transaction commits and the permit is released
 * when the method returns, so whatever the method hands back to run later
 * runs outside the gate and outside the transaction. Types of optional libraries (Reactive Streams, Kotlin) are
 * recognised by name, so that none of them has to be on the class path.
 */
final class DbBulkheadEscapes {

    /** Reactive Streams' publisher (Reactor, RxJava, Mutiny...) and Kotlin's cold flow. */
    private static final Set<String> PUBLISHERS = Set.of("org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow");
    /** The last parameter of every Kotlin {@code suspend} function once compiled. */
    private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";

    private DbBulkheadEscapes() {
    }

    /**
     * Why calls of {@code method} on {@code targetClass} would escape the admitted region, and what to do instead.
     *
     * @param why what happens to the work, naming the cause
     * @param fix how to keep the work inside the gate
     */
    record Escape(String why, String fix) {
    }

    /** How calls of {@code method} on {@code targetClass} would escape the admitted region; empty when they stay. */
    static Optional<Escape> of(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        if (AnnotatedElementUtils.hasAnnotation(specific, Async.class)
                || AnnotatedElementUtils.hasAnnotation(targetClass, Async.class)) {
            return Optional.of(new Escape("it is also @Async: the connection is taken and the transaction begun on"
                    + " the caller's thread, the body runs on another thread without either, and the permit comes back"
                    + " when the caller's empty transaction commits",
                    "Keep @Async here and move @DbBulkhead to a method of another bean that this one calls, so that"
                            + " admission and the transaction happen on the thread that runs the SQL."));
        }
        if (isKotlinSuspendFunction(specific)) {
            return Optional.of(new Escape("it is a Kotlin suspend function: it returns at its first suspension,"
                    + " the transaction commits then, and the rest of its work resumes later outside the gate",
                    "Make the gated function a plain (non-suspend) function that returns its result, and call it from"
                            + " the coroutine on a blocking-friendly dispatcher (withContext(Dispatchers.IO))."));
        }
        Class<?> returned = specific.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returned) || Future.class.isAssignableFrom(returned)) {
            return Optional.of(new Escape("it returns " + returned.getSimpleName() + ": the method returns before the"
                    + " work it stands for has run, so the transaction commits and the permit is released while that"
                    + " work still runs, unbounded and without the transaction",
                    "Return the value itself, and make the call asynchronous outside the gate, for example"
                            + " CompletableFuture.supplyAsync(() -> bean.method(...), executor)."));
        }
        if (BaseStream.class.isAssignableFrom(returned)) {
            return Optional.of(new Escape("it returns a lazy " + returned.getSimpleName() + ": the caller consumes it"
                    + " after the transaction has committed and the connection has gone back to the pool",
                    "Collect the results inside the method and return a List (or process the stream inside it)."));
        }
        if (isPublisher(returned)) {
            return Optional.of(new Escape("it returns " + returned.getSimpleName() + ", a publisher: nothing runs until"
                    + " it is subscribed to, after the method has returned, the transaction has committed and the"
                    + " permit has been released",
                    "db-bulkhead admits blocking JDBC work: gate a blocking method that returns the materialised value,"
                            + " and let the reactive code call it on a scheduler for blocking work."));
        }
        return Optional.empty();
    }

    private static boolean isKotlinSuspendFunction(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        return parameters.length > 0 && parameters[parameters.length - 1].getName().equals(KOTLIN_CONTINUATION);
    }

    private static boolean isPublisher(Class<?> type) {
        return Flow.Publisher.class.isAssignableFrom(type) || isOrExtendsOneNamed(type, PUBLISHERS);
    }

    /** Whether {@code type}, a superclass or any interface they extend, is named one of {@code names}. */
    private static boolean isOrExtendsOneNamed(@Nullable Class<?> type, Set<String> names) {
        if (type == null) {
            return false;
        }
        if (names.contains(type.getName()) || isOrExtendsOneNamed(type.getSuperclass(), names)) {
            return true;
        }
        return Arrays.stream(type.getInterfaces()).anyMatch(extended -> isOrExtendsOneNamed(extended, names));
    }
}

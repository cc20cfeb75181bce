package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Where {@code @DbBulkhead} applies, in one place for the pointcut, the interceptor and the start-up checks.
 * A method's own annotation (or that of a method it overrides or implements) wins over its class's; a class's
 * annotation covers its public methods, as a class-level {@code @Transactional} does, except Spring MVC's
 * callbacks ({@link DbBulkheadMvcCallbacks}).
 */
final class DbBulkheadDeclarations extends StaticMethodMatcherPointcut {

    static final DbBulkheadDeclarations POINTCUT = new DbBulkheadDeclarations();

    private DbBulkheadDeclarations() {
        setClassFilter(type -> AnnotationUtils.isCandidateClass(type, DbBulkhead.class));
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return workloadOf(method, targetClass) != null;
    }

    /** Whether {@code type} is an interface carrying {@code @DbBulkhead} on itself or on any of its methods. */
    static boolean declaredOn(@Nullable Class<?> type) {
        return type != null && type.isInterface() && (AnnotatedElementUtils.hasAnnotation(type, DbBulkhead.class)
                || Arrays.stream(type.getMethods()).anyMatch(method -> AnnotatedElementUtils.hasAnnotation(method,
                DbBulkhead.class)));
    }

    /** The workload that admits calls of {@code method} on {@code targetClass}, or null when none does. */
    static @Nullable String workloadOf(Method method, @Nullable Class<?> targetClass) {
        DbBulkhead declaration = declarationOf(method, targetClass);
        return declaration != null ? declaration.value() : null;
    }

    /** The {@code @DbBulkhead} that covers calls of {@code method} on {@code targetClass}, or null when none does. */
    static @Nullable DbBulkhead declarationOf(Method method, @Nullable Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DbBulkhead onMethod = AnnotatedElementUtils.findMergedAnnotation(specific, DbBulkhead.class);
        if (onMethod != null) {
            return onMethod;
        }
        if (!Modifier.isPublic(specific.getModifiers()) || Modifier.isStatic(specific.getModifiers())
                || DbBulkheadMvcCallbacks.isCallback(specific)) {
            return null;
        }
        return AnnotatedElementUtils.findMergedAnnotation(specific.getDeclaringClass(), DbBulkhead.class);
    }
}

package dev.dbbulkhead.annotation;

import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The class a {@code @DbBulkhead} method gives its calls — the annotation's criticality, the key its expression
 * reads from the arguments — bound to the calling thread around the admission. Made only for a method whose workload
 * has admission rules and whose annotation says something: every other call pays nothing for it. The annotation's
 * word wins over the request's, which stays where the annotation says nothing. Thread-safe: a parsed SpEL expression
 * may be evaluated concurrently.
 */
final class OperationClassifier {

    private static final ExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final @Nullable Criticality criticality;
    private final @Nullable Expression key;

    private OperationClassifier(@Nullable Criticality criticality, @Nullable Expression key) {
        this.criticality = criticality;
        this.key = key;
    }

    /** The classifier of {@code declaration}, or {@code null} when it declares neither a criticality nor a key. */
    static @Nullable OperationClassifier of(DbBulkhead declaration) {
        Criticality criticality = declaration.criticality() == Criticality.DEFAULT ? null : declaration.criticality();
        Expression key = parseKey(declaration.key());
        return criticality == null && key == null ? null : new OperationClassifier(criticality, key);
    }

    /**
     * The parsed key expression, {@code null} for none.
     *
     * @throws ParseException when it is not SpEL
     */
    static @Nullable Expression parseKey(String expression) {
        return expression.isBlank() ? null : PARSER.parseExpression(expression);
    }

    /**
     * Binds the call's class to the current thread: the annotation's criticality, else the one bound already; the
     * key its expression gives, else the one bound already.
     *
     * @return the scope to close, on this thread, once the call ended
     */
    OperationClass.Scope bind(MethodInvocation invocation) {
        OperationClass outer = OperationClass.current().orElse(OperationClass.UNCLASSIFIED);
        Criticality chosen = criticality != null ? criticality : outer.criticality();
        String keyOfCall = keyOf(invocation);
        if (keyOfCall == null) {
            keyOfCall = outer.key().orElse(null);
        }
        OperationClass operationClass = keyOfCall == null ? OperationClass.of(chosen)
                : OperationClass.of(chosen, keyOfCall);
        return operationClass.bind();
    }

    private @Nullable String keyOf(MethodInvocation invocation) {
        Expression expression = key;
        if (expression == null) {
            return null;
        }
        Method method = invocation.getMethod();
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(invocation.getThis(), method,
                invocation.getArguments(), PARAMETER_NAMES);
        Object value = expression.getValue(context);
        return value == null ? null : value.toString();
    }
}

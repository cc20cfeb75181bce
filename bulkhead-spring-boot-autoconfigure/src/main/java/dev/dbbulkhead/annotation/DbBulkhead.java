package dev.dbbulkhead.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Admits calls of a method (or of every public method of a type) through the named workload's bulkhead,
 * then runs the method inside that workload's transaction. Admission always happens before the
 * transaction starts, so the annotated bean must not be {@code @Transactional} itself.
 *
 * <pre>{@code
 * @Service
 * class OrderEntry {
 *     @DbBulkhead("orders")
 *     Order place(OrderRequest request) { ... }   // one transaction, admitted by the "orders" gate
 * }
 * }</pre>
 *
 * <p>Meta-annotated {@link Reflective}: Spring's ahead-of-time processing registers the annotated methods for
 * reflection, as a native image needs them. (The JVM ignores that annotation where Spring is absent.)
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
@Reflective
public @interface DbBulkhead {

    /** The workload name, as configured under {@code db.bulkhead.workloads.<name>}. */
    String value();
}

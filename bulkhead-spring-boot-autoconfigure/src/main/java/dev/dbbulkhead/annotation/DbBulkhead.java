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
 * transaction starts.
 *
 * <pre>{@code
 * @Service
 * class OrderEntry {
 *     @DbBulkhead("orders")
 *     Order place(OrderRequest request) { ... }   // one transaction, admitted by the "orders" gate
 *
 *     @DbBulkhead(value = "orders", readOnly = true)
 *     Order find(long id) { ... }                 // the same gate, a read-only transaction: never flushed
 * }
 * }</pre>
 *
 * <p>Beside {@code @Transactional} (Spring's or jakarta's, on the method, its class or an interface, as on a Spring
 * Data repository and the methods it inherits) the gate still comes first: it admits the call, then begins the
 * method's transaction with that method's own attributes — read-only, isolation, timeout, rollback rules — on the
 * workload's transaction manager, and Spring's transaction interceptor joins it. The transaction manager Spring
 * would run the method in must be the workload's, and the method's propagation must let the admitted transaction be
 * its own ({@code REQUIRED}, {@code SUPPORTS} or {@code MANDATORY}); start-up refuses anything else.
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

    /**
     * Whether the admitted transaction is read-only, for a method that only reads (a loader, a query): under JPA it
     * is never flushed, so an entity the method changes in memory is not written at commit, and the JDBC connection
     * is marked read-only, so that PostgreSQL refuses a write. The transaction is read-only also when the workload's
     * {@code transaction.read-only} or the method's {@code @Transactional(readOnly = true)} says so; {@code false}
     * leaves it to them.
     */
    boolean readOnly() default false;
}

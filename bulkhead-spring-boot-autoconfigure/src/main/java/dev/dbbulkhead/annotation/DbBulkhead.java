package dev.dbbulkhead.annotation;

import dev.dbbulkhead.gate.Criticality;
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

    /**
     * The criticality of the calls, for a workload with criticality reserves
     * ({@code db.bulkhead.workloads.<name>.criticality.*}): {@link Criticality#SHEDDABLE} work is refused first under
     * contention, {@link Criticality#CRITICAL} work may take the places held back for it. The default,
     * {@link Criticality#DEFAULT}, says nothing: the calls take the criticality the request gives them (its
     * criticality header), else the default one. A workload without rules ignores it.
     */
    Criticality criticality() default Criticality.DEFAULT;

    /**
     * A SpEL expression over the method's arguments giving the key (tenant) of each call, for a workload with fair
     * shares ({@code fair-share.enabled}): {@code "#tenantId"}, {@code "#order.customerId"}, or {@code "#p0"} by
     * position. A non-null value, as a string, is the key, ahead of the request's; {@code null}, or no expression
     * (the default), leaves the request's key. Parsed once per method; a workload without rules never evaluates it.
     */
    String key() default "";
}

package dev.dbbulkhead.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Brings db-bulkhead into a test slice — {@code @JdbcTest}, {@code @DataJpaTest}, {@code @WebMvcTest} — as it runs in
 * the application: the workloads' gates, {@code @DbBulkhead} methods, the watch for ungated work (so that
 * {@code db.bulkhead.ungated.mode=fail} refuses a loader that borrows outside every gate), and, in a servlet slice,
 * the rejection filter. Slices leave the starter out unless asked, as they leave out everything not of their concern;
 * the auto-configurations imported are listed in
 * {@code META-INF/spring/dev.dbbulkhead.test.AutoConfigureDbBulkhead.imports}.
 *
 * <pre>{@code
 * @JdbcTest(properties = "db.bulkhead.ungated.mode=fail")
 * @AutoConfigureDbBulkhead
 * @Transactional(propagation = Propagation.NOT_SUPPORTED)
 * class OwnerLoaderTests { ... }
 * }</pre>
 *
 * <p>The gates need a DataSource and a transaction manager: a {@code @WebMvcTest} gets them with
 * {@code @AutoConfigureJdbc} or a configuration of its own. A test-managed transaction ({@code @Transactional}
 * tests, the default of the data slices) holds one connection for the whole test, so work inside it borrows nothing
 * that the watch could see, and a {@code @DbBulkhead} method called inside it is refused as entered inside an active
 * transaction: run such tests without it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureDbBulkhead {
}

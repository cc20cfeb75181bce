package dev.dbbulkhead.autoconfigure;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The one application context of the full-application tests, on the shared schema; every subclass reuses it
 * from Spring's test context cache.
 */
@SpringBootTest(classes = BulkheadTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
public abstract class ApplicationTestSupport {

    @Autowired
    DataSource dataSource;

    @Autowired
    BulkheadTestApplication.TransactionCounter transactions;

    @DynamicPropertySource
    public static void sharedDatabase(DynamicPropertyRegistry registry) {
        for (String property : SharedDatabase.dataSourceProperties()) {
            int equals = property.indexOf('=');
            registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
        }
    }

    /** Connections the pool has lent out right now. */
    int activeConnections() {
        // The bean is the pool behind the watch for ungated work: reached as Spring Boot reaches it.
        return DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class, HikariDataSource.class)
                .getHikariPoolMXBean().getActiveConnections();
    }
}

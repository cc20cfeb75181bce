package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an injection of a watched pool by the pool's own class ({@code HikariDataSource}) as what it is: the bean
 * is the watch in front of the pool since db-bulkhead watches it for ungated work, and code that needs the pool's
 * class reaches it with {@code unwrap}, as Spring Boot's own code does.
 */
final class WatchedPoolInjectionFailureAnalyzer extends AbstractFailureAnalyzer<BeanNotOfRequiredTypeException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BeanNotOfRequiredTypeException cause) {
        if (!WatchedDataSource.class.isAssignableFrom(cause.getActualType())) {
            return null;
        }
        String required = cause.getRequiredType().getName();
        return new FailureAnalysis("The DataSource bean '" + cause.getBeanName() + "' could not be injected as a "
                + required + ": db-bulkhead watches it for connections borrowed outside every gate, so the bean is"
                + " a " + WatchedDataSource.class.getName() + " in front of the pool.",
                "Inject it as javax.sql.DataSource and reach the pool with dataSource.unwrap("
                        + cause.getRequiredType().getSimpleName() + ".class), or set '" + BulkheadProperties.PREFIX
                        + ".ungated.mode=off' to leave the bean as it is.", cause);
    }
}

package dev.dbbulkhead.jpa.startup;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * Start-up tests of a Spring Data JPA application on Hibernate with Boot's auto-configuration, on the real
 * PostgreSQL of {@link JpaTestDatabase}: a runner whose failing context is the point of the test.
 */
final class JpaStartUp {

    private JpaStartUp() {
    }

    /** Boot's data source, Hibernate, transaction and Spring Data JPA auto-configurations, and the bulkheads. */
    static ApplicationContextRunner runner() {
        List<String> properties = new ArrayList<>();
        JpaTestDatabase.register((name, value) -> properties.add(name + "=" + value.get()));
        properties.add("spring.jpa.hibernate.ddl-auto=create");
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
                        DataJpaRepositoriesAutoConfiguration.class, BulkheadAutoConfiguration.class))
                .withPropertyValues(properties.toArray(String[]::new));
    }

    /** The report Boot would print for {@code failure}: description, then action, of the first analyzer that knows it. */
    static String report(Throwable failure) {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(JpaStartUp.class.getClassLoader())
                .load(FailureAnalyzer.class, ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                                .and(Environment.class, new StandardEnvironment()),
                        FailureHandler.handleMessage((message, ignored) -> { }));
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis.getDescription() + "\nAction: " + analysis.getAction();
            }
        }
        throw new AssertionError("No failure analyzer reports " + failure, failure);
    }
}

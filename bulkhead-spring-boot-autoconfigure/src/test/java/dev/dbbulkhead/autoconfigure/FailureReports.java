package dev.dbbulkhead.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The start-up report a user would read: the first analysis of the registered failure analyzers, as Boot picks it. */
public final class FailureReports {

    private FailureReports() {
    }

    public static FailureAnalysis analyze(Throwable failure) {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader
                .forDefaultResourceLocation(FailureReports.class.getClassLoader())
                .load(FailureAnalyzer.class,
                        ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                                .and(Environment.class, new StandardEnvironment()),
                        FailureHandler.handleMessage((message, ignored) -> { }));
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("No failure analyzer reports " + failure, failure);
    }

    /** The whole report, description and action, as one text to search. */
    public static String report(Throwable failure) {
        FailureAnalysis analysis = analyze(failure);
        return analysis.getDescription() + "\nAction: " + analysis.getAction();
    }
}

package dev.dbbulkhead.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link BulkheadConfigurationException} at start-up as what is wrong and what to do about it. */
final class BulkheadFailureAnalyzer extends AbstractFailureAnalyzer<BulkheadConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BulkheadConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}

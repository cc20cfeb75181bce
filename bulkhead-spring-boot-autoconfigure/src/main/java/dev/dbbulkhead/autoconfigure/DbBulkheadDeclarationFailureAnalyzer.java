package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.annotation.DbBulkheadDeclarationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link DbBulkheadDeclarationException} at start-up as what is wrong and what to do about it. */
final class DbBulkheadDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<DbBulkheadDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DbBulkheadDeclarationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}

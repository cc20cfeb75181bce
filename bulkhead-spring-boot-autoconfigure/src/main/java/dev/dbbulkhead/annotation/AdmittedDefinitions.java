package dev.dbbulkhead.annotation;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * The transaction a gate begins for one {@code @DbBulkhead} method: the workload's, refined by what the method
 * declares. Its propagation stays the workload's {@code REQUIRED} (admission guarantees no transaction is active, so
 * a new one begins), its name the workload's.
 */
final class AdmittedDefinitions {

    private AdmittedDefinitions() {
    }

    /**
     * @param workload the workload's own transaction settings
     * @param declared the method's {@code @Transactional}, or null: its isolation and timeout win where it sets them
     * @param readOnly the method's {@code @DbBulkhead(readOnly)}
     * @return read-only when the workload, {@code @DbBulkhead} or {@code @Transactional} says so: a read-only setting
     *         is never undone by another's default, which cannot tell "read-write" from "not said"
     */
    static TransactionDefinition of(TransactionDefinition workload, @Nullable TransactionDefinition declared,
                                    boolean readOnly) {
        DefaultTransactionDefinition admitted = new DefaultTransactionDefinition(workload);
        boolean declaredReadOnly = false;
        if (declared != null) {
            if (declared.getIsolationLevel() != TransactionDefinition.ISOLATION_DEFAULT) {
                admitted.setIsolationLevel(declared.getIsolationLevel());
            }
            if (declared.getTimeout() != TransactionDefinition.TIMEOUT_DEFAULT) {
                admitted.setTimeout(declared.getTimeout());
            }
            declaredReadOnly = declared.isReadOnly();
        }
        admitted.setReadOnly(workload.isReadOnly() || readOnly || declaredReadOnly);
        return admitted;
    }
}

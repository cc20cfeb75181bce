package dev.dbbulkhead.jpa.ungated;

/**
 * The clinic's owners, behind one interface so that the same controllers run on Spring Data JPA
 * ({@code JpaTransactionManager}) and on plain JDBC ({@code DataSourceTransactionManager}). Each implementation is
 * {@code @Transactional(readOnly = true)}, as Spring Data's repositories are: its transaction borrows the connection
 * in the proxy, before the implementation runs, so the application frame that borrowed is its caller.
 */
interface OwnerNames {

    long create(String name);

    String nameOf(long id);
}

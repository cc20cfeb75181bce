package dev.dbbulkhead.benchmarks.pathcost;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** The application's transactional code: a {@code @Transactional} bean that credits one account row. */
public class Accounts {

    private static final String CREDIT = "UPDATE account SET balance = balance + 1 WHERE id = ? RETURNING balance";

    private final JdbcTemplate jdbc;

    public Accounts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Adds one to account {@code id}'s balance in a transaction of its own (or the caller's) and returns it. */
    @Transactional
    public long credit(int id) {
        Long balance = jdbc.queryForObject(CREDIT, Long.class, id);
        if (balance == null) {
            throw new IllegalStateException("No account " + id);
        }
        return balance;
    }
}

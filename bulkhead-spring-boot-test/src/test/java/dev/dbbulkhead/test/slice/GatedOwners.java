package dev.dbbulkhead.test.slice;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/** The same query through the gate. */
@Service
@DbBulkhead("owners")
public class GatedOwners {

    private final JdbcTemplate jdbc;

    GatedOwners(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public String ownerName() {
        return jdbc.queryForObject("SELECT 'ada'", String.class);
    }
}
